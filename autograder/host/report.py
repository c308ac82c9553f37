"""final_grades.csv in Otter's columns, and report.html for instructors: a score
histogram, the pass rate of every test case and each submission's feedback as its
student sees it. Everything a student wrote is HTML-escaped (jinja2 autoescape)."""
from __future__ import annotations

import base64
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2

from autograder.shared.cases import Case


@dataclass
class Row:
    file: str
    status: str                       # "Completed" or the reason it was not graded
    scores: dict[str, float]          # question -> points earned
    feedback: str = ""                # what the student sees (visible outputs)
    passed: frozenset[str] = frozenset()  # names of the cases that passed
    seconds: float = 0.0
    peak_mb: float | None = None      # the grading container's peak memory (make bench)


def passed_cases(results: dict, all_cases: list[Case]) -> frozenset[str]:
    """Names of the cases that passed, read from Otter's per-question summaries."""
    passed = set()
    for test in results.get("tests", []):
        if "score" not in test:
            continue
        output = test.get("output", "")
        if "All test cases passed!" in output:
            passed.update(c.name for c in all_cases if c.question == test["name"])
        for name, verdict in re.findall(r"^\s*(.+? - \d+) result:\s*\n\s*(✅|❌)", output, re.M):
            if verdict == "✅":
                passed.add(name.strip())
    return frozenset(passed)


def row(file: str, results: dict | None, status: str, all_cases: list[Case], seconds: float) -> Row:
    if results is None:
        return Row(file, status, {}, seconds=seconds)
    scores = {t["name"]: float(t["score"]) for t in results.get("tests", []) if "score" in t}
    notes = [results["output"]] if results.get("output") else []   # the runner's notes
    visible = "\n\n".join(notes + [f"{t['name']}:\n{t.get('output', '')}" for t in results.get("tests", [])
                                   if t.get("visibility") == "visible"])
    return Row(file, status, scores, visible, passed_cases(results, all_cases), seconds)


def write_csv(path: Path, rows: list[Row], all_cases: list[Case]) -> None:
    """Otter's columns: file, one per question, total_points_earned, percent_correct,
    grading_status; the second row holds the points of each question."""
    questions = list(dict.fromkeys(c.question for c in all_cases))
    possible = {q: sum(c.points for c in all_cases if c.question == q) for q in questions}
    total = sum(possible.values())
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", *questions, "total_points_earned", "percent_correct", "grading_status"])
        w.writerow(["points-per-question", *(f"{possible[q]:g}" for q in questions), f"{total:g}", "1.0", "--"])
        for r in rows:
            earned = sum(r.scores.get(q, 0.0) for q in questions)
            w.writerow([r.file, *(f"{r.scores.get(q, 0.0):g}" for q in questions), f"{earned:g}",
                        f"{earned / total if total else 0:.3f}", r.status])


def _histogram(totals: list[float], maximum: float) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.hist(totals, bins=[b - 0.5 for b in range(int(maximum) + 2)], color="#4c72b0", rwidth=0.9)
    ax.set_xlabel("score")
    ax.set_ylabel("submissions")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


TEMPLATE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ assignment }}: grades</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}td,th{padding:.2em .6em;text-align:left}
pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}.bad{color:#a00}</style></head><body>
<h1>{{ assignment }}</h1>
<p>{{ rows|length }} submissions, {{ graded }} graded, mean {{ "%.2f"|format(mean) }} / {{ maximum }}.</p>
<img alt="score histogram" src="data:image/png;base64,{{ histogram }}">
<h2>Test cases</h2>
<table><tr><th>case</th><th>visibility</th><th>points</th><th>passed</th></tr>
{% for c, rate in case_rates %}<tr><td>{{ c.name }}</td><td>{{ "hidden" if c.hidden else "public" }}</td>
<td>{{ c.points }}</td><td>{{ "%.0f"|format(100 * rate) }}%</td></tr>{% endfor %}</table>
<h2>Submissions</h2>
<table><tr><th>file</th><th>score</th><th>status</th><th>time</th></tr>
{% for r in rows %}<tr><td><a href="#s{{ loop.index }}">{{ r.file }}</a></td><td>{{ "%g"|format(r.scores.values()|sum) }}</td>
<td class="{{ '' if r.status == 'Completed' else 'bad' }}">{{ r.status }}</td><td>{{ "%.0f"|format(r.seconds) }} s</td></tr>{% endfor %}</table>
<h2>Feedback as each student sees it</h2>
{% for r in rows %}<h3 id="s{{ loop.index }}">{{ r.file }}</h3><pre>{{ r.feedback or r.status }}</pre>{% endfor %}
</body></html>"""


def write_html(path: Path, assignment: str, rows: list[Row], all_cases: list[Case]) -> None:
    maximum = sum(c.points for c in all_cases)
    graded = [r for r in rows if r.status == "Completed"]
    totals = [sum(r.scores.values()) for r in rows]
    rates = [(c, sum(c.name in r.passed for r in graded) / len(graded) if graded else 0.0) for c in all_cases]
    env = jinja2.Environment(autoescape=True)
    path.write_text(env.from_string(TEMPLATE).render(
        assignment=assignment, rows=rows, graded=len(graded), maximum=f"{maximum:g}",
        mean=sum(totals) / len(totals) if totals else 0.0, histogram=_histogram(totals, maximum),
        case_rates=rates))
