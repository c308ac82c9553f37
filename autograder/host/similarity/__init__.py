"""Which answers are copies: the similarity report beside the grades (make similarity,
and a section of make grade's report). copydetect does the comparing (MOSS's winnowing over
Pygments tokens); this package chooses what is compared (student_code), pairs the
submissions and the reference material (batch, compare) and shows the result (report)."""
from __future__ import annotations

from pathlib import Path

from markupsafe import Markup, escape

from autograder.shared.config import SimilaritySettings


def section(assignment: str, notebooks: list[tuple[str, Path | None]], settings: SimilaritySettings) -> Markup:
    """The report's similarity section; a failure to compare says so there and never
    costs the grades."""
    from autograder.host.similarity import batch, report
    try:
        return report.section(batch.analyse(assignment, notebooks, settings))
    except Exception as exc:
        return Markup('<section id="similarity"><h2>Similarity</h2><p class="bad">The similarity could '
                      'not be computed: {}</p></section>').format(escape(f"{type(exc).__name__}: {exc}"))
