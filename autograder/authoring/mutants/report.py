"""The mutants' report: a CSV of every graded mutant (its kind, change, why the oracle finds
it wrong, its score, the failure sentences) and an HTML page of the survivors first, each
with its diff against the reference; the counts and the time on top."""
from __future__ import annotations

import csv
import difflib
from dataclasses import dataclass
from pathlib import Path

import jinja2

from autograder.authoring.mutants.generate import Mutant


@dataclass
class Row:
    mutant: Mutant
    why: str                 # the oracle's reason it is wrong
    score: float | None      # None: the grading failed
    possible: float | None
    feedback: str
    seconds: float

    @property
    def survived(self) -> bool:
        return self.score is not None and self.possible is not None and self.score >= self.possible

    @property
    def failures(self) -> str:
        return failures(self.feedback)


def failures(feedback: str) -> str:
    """The first sentence of each test that failed, as the student reads it (the line after
    Otter's "Test case failed"; the feedback's start when there is none)."""
    lines = [line.strip() for line in feedback.splitlines() if line.strip()]
    failed = [lines[i + 1] for i, line in enumerate(lines[:-1]) if "Test case failed" in line]
    return (" | ".join(failed) if failed else " | ".join(lines))[:600]


_PAGE = jinja2.Template("""<!doctype html><meta charset="utf-8"><title>Mutants of {{ name }}</title>
<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.s{color:#b00}td,th{padding:.2em .6em;text-align:left;vertical-align:top}</style>
<h1>Mutants of {{ name }}'s reference answer</h1>
<p>{{ generated }} generated, {{ equivalent }} equivalent (the oracle finds them right: not graded),
{{ killed }} killed, <b class="s">{{ survivors|length }} survived</b>; {{ "%.0f"|format(seconds) }} s in all
({{ "%.0f"|format(judged_s) }} s generating and judging).</p>
<h2>Survivors: wrong, yet full marks</h2>
{% for r in survivors %}<h3 class="s">{{ r.mutant.name }}</h3><p>{{ r.mutant.change }}. Wrong: {{ r.why }}.
Score {{ r.score }}/{{ r.possible }}.</p><pre>{{ diffs[r.mutant.name] }}</pre>
{% else %}<p>None.</p>{% endfor %}
<h2>Every graded mutant</h2><table><tr><th>mutant</th><th>kind</th><th>score</th><th>why wrong</th><th>failures</th></tr>
{% for r in rows %}<tr><td>{{ r.mutant.name }}</td><td>{{ r.mutant.kind }}</td>
<td>{{ r.score if r.score is not none else "error" }}/{{ r.possible }}</td><td>{{ r.why }}</td><td>{{ r.failures }}</td></tr>
{% endfor %}</table>""", autoescape=True)


def write(folder: Path, name: str, reference: str, rows: list[Row], *, generated: int, equivalent: int,
          judged_s: float, seconds: float) -> Path:
    """mutants.csv and mutants.html in `folder`; returns the HTML's path."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "mutants.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["mutant", "kind", "change", "why wrong", "score", "possible", "survived", "seconds", "failures"])
        for r in rows:
            out.writerow([r.mutant.name, r.mutant.kind, r.mutant.change, r.why, r.score, r.possible, r.survived,
                          f"{r.seconds:.1f}", r.failures])
    survivors = [r for r in rows if r.survived]
    diffs = {r.mutant.name: "".join(difflib.unified_diff(reference.splitlines(True), r.mutant.code.splitlines(True),
                                                         "reference", r.mutant.name)) for r in survivors}
    page = folder / "mutants.html"
    page.write_text(_PAGE.render(name=name, rows=rows, survivors=survivors, diffs=diffs, generated=generated,
                                 equivalent=equivalent, killed=len(rows) - len(survivors), seconds=seconds,
                                 judged_s=judged_s))
    return page
