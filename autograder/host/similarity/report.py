"""The similarity section of the instructors' report (and the page make similarity writes):
the pairs at or above the threshold, ranked, each with its matching passages side by side;
the submissions closest to the reference material; a histogram of each submission's highest
similarity. Student code is HTML-escaped by copydetect's highlight_overlap (escape_html)
before the <mark> tags go in; everything else by jinja2's autoescape."""
from __future__ import annotations

import base64
import io

import jinja2
from copydetect.utils import highlight_overlap
from markupsafe import Markup, escape

from autograder.host.similarity.batch import Result
from autograder.host.similarity.compare import Match

SECTION = """<section id="similarity"><style>{{ style }}</style><h2>Similarity</h2>
<p class="caution"><b>A high score is a reason to look, not proof.</b> Answers to one small exercise
resemble each other, and a student who studied the chapter's appendix may write what it
wrote. Read the matching passages, and talk with the students, before you decide anything.</p>
<p>Compared: each of {{ result.documents|length }} submissions' own code (its answer cell and the
cells its student added; the code the student notebook gives left out), {{ "every pair of them, " if result.settings.pairs }}and
each against {{ result.reference_labels|join(" and ") or "no reference material" }}. Names, strings, comments and
layout do not count; C++ held in Python strings is compared as C++. A pair's score is the larger of
the two shares of each one's code found in the other (copydetect's winnowing, matches of
{{ result.settings.noise_tokens }} tokens or more); pairs at or above {{ "%.0f"|format(100 * result.settings.threshold) }}% are listed.</p>
{% if result.missing %}<p>Not found for this assignment, so not compared: {{ result.missing|join("; ") }}.</p>{% endif %}
{% if result.left_out %}<p>Not compared: {% for file, why in result.left_out %}{{ file }} ({{ why }}){{ "; " if not loop.last }}{% endfor %}.</p>{% endif %}
{% if histogram %}<img alt="histogram of each submission's highest similarity" src="data:image/png;base64,{{ histogram }}">{% endif %}
<h3>Pairs at or above {{ "%.0f"|format(100 * result.settings.threshold) }}%</h3>
{% if flagged %}<table class="pairs"><tr><th>#</th><th>submission</th><th>share found in the other</th><th>submission</th><th>share found in the other</th></tr>
{% for m in flagged %}<tr><td><a href="#pair{{ loop.index }}">{{ loop.index }}</a></td><td>{{ m.a.name }}</td><td>{{ "%.0f"|format(100 * m.similarity[0]) }}%</td>
<td>{{ m.b.name }}</td><td>{{ "%.0f"|format(100 * m.similarity[1]) }}%</td></tr>{% endfor %}</table>
{% else %}<p>None{% if result.pairs %}: the most similar pair is {{ result.pairs[0].a.name }} and {{ result.pairs[0].b.name }} ({{ "%.0f"|format(100 * result.pairs[0].score) }}%){% endif %}.</p>{% endif %}
<h3>Closest to the reference material</h3>
{% if closest %}<table class="references"><tr><th>submission</th><th>reference</th><th>share of the submission found in it</th></tr>
{% for m in closest %}<tr class="{{ 'flag' if m.similarity[0] >= result.settings.threshold }}"><td>{{ m.a.name }}</td><td>{{ m.b.name }}</td>
<td>{% if m.similarity[0] >= result.settings.threshold %}<a href="#ref{{ loop.index }}">{{ "%.0f"|format(100 * m.similarity[0]) }}%</a>{% else %}{{ "%.0f"|format(100 * m.similarity[0]) }}%{% endif %}</td></tr>{% endfor %}</table>
{% else %}<p>No submission shares code with the reference material.</p>{% endif %}
{% for anchor, m, views in details %}<details id="{{ anchor }}"{{ " open" if loop.index <= 3 }}><summary>{{ m.a.name }} and {{ m.b.name }}:
{{ "%.0f"|format(100 * m.similarity[0]) }}% / {{ "%.0f"|format(100 * m.similarity[1]) }}%</summary>
{% for language, left, right in views %}<table class="side"><tr><th>{{ m.a.name }} ({{ language }})</th><th>{{ m.b.name }} ({{ language }})</th></tr>
<tr><td><pre>{{ left }}</pre></td><td><pre>{{ right }}</pre></td></tr></table>{% endfor %}</details>
{% endfor %}</section>"""

STYLE = """section#similarity mark{background:#ffe08a}section#similarity table.side{width:100%;table-layout:fixed}
section#similarity table.side td{width:50%}section#similarity pre{font-size:.8em;overflow-x:auto}
section#similarity tr.flag td{font-weight:bold}p.caution{border-left:4px solid #c90;padding-left:.6em}"""

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ assignment }}: similarity</title>
<style>body{font-family:sans-serif;max-width:80em;margin:2em auto}td,th{padding:.2em .6em;text-align:left;vertical-align:top}
pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}.bad{color:#a00}</style></head><body>
<h1>{{ assignment }}</h1>{{ section }}</body></html>"""


def _marked(text: str, slices, context: int) -> Markup:
    """`text` escaped, its matching passages marked with `context` lines around each."""
    if slices is None or not len(slices[0]):
        return Markup(escape(text))
    html, _ = highlight_overlap(text, slices, "<mark>", "</mark>", truncate=context, escape_html=True)
    return Markup(html)


def _views(m: Match, context: int) -> list[tuple[str, Markup, Markup]]:
    """Per language with a match: a's and b's code, the matching passages marked."""
    return [(language, _marked(m.a.prints[language].raw_code, pa, context),
             _marked(m.b.prints[language].raw_code, pb, context))
            for language, (pa, pb) in sorted(m.slices.items())]


def _histogram(highest: list[float], threshold: float) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator, PercentFormatter
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.hist(highest, bins=[b / 20 for b in range(21)], color="#4c72b0", rwidth=0.9)
    ax.axvline(threshold, color="#c33", linestyle="--", label="threshold")
    ax.set_xlabel("highest share of a submission's code found in another or in a reference")
    ax.set_ylabel("submissions")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def section(result: Result) -> Markup:
    flagged = result.flagged()[:result.settings.shown]
    closest = []
    for label in result.reference_labels:
        closest += [m for m in result.references if m.b.name == label][:result.settings.reference_rows]
    closest.sort(key=lambda m: (-m.similarity[0], -m.similarity[1]))
    context = result.settings.context_lines
    details = [(f"pair{i}", m, _views(m, context)) for i, m in enumerate(flagged, 1)]
    details += [(f"ref{i}", m, _views(m, context)) for i, m in enumerate(closest, 1)
                if m.similarity[0] >= result.settings.threshold]
    highest = list(result.highest().values())
    env = jinja2.Environment(autoescape=True)
    return Markup(env.from_string(SECTION).render(
        result=result, flagged=flagged, closest=closest, details=details, style=Markup(STYLE),
        histogram=_histogram(highest, result.settings.threshold) if highest else ""))


def page(assignment: str, result: Result) -> str:
    env = jinja2.Environment(autoescape=True)
    return env.from_string(PAGE).render(assignment=assignment, section=section(result))
