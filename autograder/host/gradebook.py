"""final_grades.csv in Otter's columns (and each grading's seed), and report.html for
instructors: a score histogram, the pass rate of every test case named by its concept with
the submissions that failed it, and per submission the cases it failed (hidden ones
included, which its student never sees) with their sentences, then its feedback as its
student sees it; last, the similarity section (autograder.host.similarity).
Verdicts are read from the runner's grading.json (data), never from Otter's printed text.
Everything a student wrote is HTML-escaped (jinja2 autoescape)."""
from __future__ import annotations

import base64
import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup

from autograder.shared.cases import Case


@dataclass
class Row:
    file: str
    status: str                       # "Completed" or the reason it was not graded
    scores: dict[str, float]          # question -> points earned
    feedback: str = ""                # what the student sees (visible outputs)
    seconds: float = 0.0
    peak_mb: float | None = None      # the grading container's peak memory (make bench)
    seed: int | None = None           # the seed the grading drew (regrade with --seed)
    verdicts: list = field(default_factory=list)  # grading.json's cases: name, concept, passed, message

    @property
    def passed(self) -> frozenset[str]:
        """Names of the cases that passed."""
        return frozenset(v["name"] for v in self.verdicts if v.get("passed"))


def row(file: str, results: dict | None, status: str, seconds: float, grading: dict | None = None) -> Row:
    """A submission's row from Otter's results.json (scores, what the student sees) and the
    runner's grading.json (seed and verdicts, as data)."""
    if results is None:
        return Row(file, status, {}, seconds=seconds)
    if grading is None:
        return Row(file, "the runner wrote no grading.json", {}, seconds=seconds)
    scores = {t["name"]: float(t["score"]) for t in results.get("tests", []) if "score" in t}
    notes = [results["output"]] if results.get("output") else []   # the runner's notes
    visible = "\n\n".join(notes + [f"{t['name']}:\n{t.get('output', '')}" for t in results.get("tests", [])
                                   if t.get("visibility") == "visible"])
    if grading.get("grader_error"):   # the runner itself failed: its result says so, not "Completed"
        status = grader_error_status(grading["grader_error"])
    return Row(file, status, scores, visible, seconds, seed=grading.get("seed"),
               verdicts=list(grading.get("cases", [])))


def grader_error_status(error) -> str:
    """The grading_status of a grading the runner itself failed (grading.json's grader_error:
    type, message, traceback), on one line."""
    if not isinstance(error, dict):
        return "grader error"
    message = str(error.get("message", "")).strip().splitlines()
    return f"grader error: {error.get('type', 'Exception')}" + (f": {message[0][:300]}" if message else "")


def write_csv(path: Path, rows: list[Row], all_cases: list[Case]) -> None:
    """Otter's columns: file, one per question, total_points_earned, percent_correct,
    grading_status; then the seed of each grading (make grade --seed reproduces it). The
    second row holds the points of each question."""
    questions = list(dict.fromkeys(c.question for c in all_cases))
    possible = {q: sum(c.points for c in all_cases if c.question == q) for q in questions}
    total = sum(possible.values())
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", *questions, "total_points_earned", "percent_correct", "grading_status", "seed"])
        w.writerow(["points-per-question", *(f"{possible[q]:g}" for q in questions), f"{total:g}", "1.0", "--", "--"])
        for r in rows:
            earned = sum(r.scores.get(q, 0.0) for q in questions)
            w.writerow([r.file, *(f"{r.scores.get(q, 0.0):g}" for q in questions), f"{earned:g}",
                        f"{earned / total if total else 0:.3f}", r.status, "" if r.seed is None else r.seed])


def _histogram(totals: list[float], maximum: float) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.hist(totals, bins=[b - 0.5 for b in range(int(maximum) + 2)], color="#4c72b0", rwidth=0.9)
    ax.set_xlabel("score")
    ax.set_ylabel("submissions")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


TEMPLATE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ assignment }}: grades</title>
<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}td,th{padding:.2em .6em;text-align:left;vertical-align:top}
pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}.bad{color:#a00}small{color:#555}</style></head><body>
<h1>{{ assignment }}</h1>
<p>{{ rows|length }} submissions, {{ graded }} graded, mean {{ "%.2f"|format(mean) }} / {{ maximum }}.</p>
<img alt="score histogram" src="data:image/png;base64,{{ histogram }}">
<h2>Test cases</h2>
<table><tr><th>concept</th><th>case</th><th>visibility</th><th>points</th><th>passed</th><th>failed by</th></tr>
{% for c, passed, failed in case_rates %}<tr><td>{{ c.concept or c.name }}</td><td><small>{{ c.name }}<br>{{ c.test }}</small></td>
<td>{{ "hidden" if c.hidden else "public" }}</td><td>{{ "%g"|format(c.points) }}</td>
<td>{{ passed }} / {{ graded }}{% if graded %} ({{ "%.0f"|format(100 * passed / graded) }}%){% endif %}</td>
<td>{% for index, r, message in failed %}<a href="#s{{ index }}" title="{{ message }}">{{ r.file }}</a>{{ ", " if not loop.last }}{% endfor %}</td></tr>{% endfor %}</table>
<h2>Submissions</h2>
<table><tr><th>file</th><th>score</th><th>status</th><th>time</th><th>seed</th></tr>
{% for r in rows %}<tr><td><a href="#s{{ loop.index }}">{{ r.file }}</a></td><td>{{ "%g"|format(r.scores.values()|sum) }}</td>
<td class="{{ '' if r.status == 'Completed' else 'bad' }}">{{ r.status }}</td><td>{{ "%.0f"|format(r.seconds) }} s</td>
<td><small>{{ r.seed if r.seed is not none else "" }}</small></td></tr>{% endfor %}</table>
<h2>Each submission: the cases it failed, then its feedback as its student sees it</h2>
{% for r in rows %}<h3 id="s{{ loop.index }}">{{ r.file }}</h3>
{% set failed = r.verdicts|rejectattr("passed")|list %}{% if failed %}<table class="failed">
<tr><th>case</th><th>visibility</th><th>points</th><th>concept: sentence</th></tr>
{% for v in failed %}<tr><td><small>{{ v.name }}</small></td><td>{{ "hidden" if v.hidden else "public" }}</td>
<td>{{ "%g"|format(v.points or 0) }}</td><td>{{ v.concept }}{{ ": " if v.concept }}{{ v.message }}</td></tr>{% endfor %}</table>
{% endif %}<pre>{{ r.feedback or r.status }}</pre>{% endfor %}
{{ similarity or "" }}
</body></html>"""


def write_html(path: Path, assignment: str, rows: list[Row], all_cases: list[Case],
               similarity: Markup | None = None) -> None:
    """`similarity`: the similarity section (autograder.host.similarity), rendered already."""
    maximum = sum(c.points for c in all_cases)
    graded = [(i, r) for i, r in enumerate(rows, 1) if r.status == "Completed"]
    totals = [sum(r.scores.values()) for r in rows]
    case_rates = []
    for c in all_cases:
        failed = [(i, r, next((v.get("message", "") for v in r.verdicts if v.get("name") == c.name), ""))
                  for i, r in graded if c.name not in r.passed]
        case_rates.append((c, len(graded) - len(failed), failed))
    env = jinja2.Environment(autoescape=True)
    path.write_text(env.from_string(TEMPLATE).render(
        assignment=assignment, rows=rows, graded=len(graded), maximum=f"{maximum:g}",
        mean=sum(totals) / len(totals) if totals else 0.0, histogram=_histogram(totals, maximum),
        case_rates=case_rates, similarity=similarity))
