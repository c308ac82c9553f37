"""One assignment's submissions compared with each other and with the reference material
of otter_config.json's `similarity.references` (the chapter's appendix solution, the
assignment's reference answer)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.host.similarity import compare, student_code
from autograder.shared import paths
from autograder.shared.config import SimilaritySettings


@dataclass
class Result:
    settings: SimilaritySettings
    documents: list[compare.Document]               # the submissions with code of their own
    pairs: list[compare.Match]                      # submission pairs with a match, best first
    references: list[compare.Match]                 # (submission, reference), best first
    reference_labels: list[str]                     # the reference material found
    missing: list[str] = field(default_factory=list)            # references configured but absent
    left_out: list[tuple[str, str]] = field(default_factory=list)   # (file, why it is not compared)

    def highest(self) -> dict[str, float]:
        """Per submission: the largest share of its code found in one other submission or
        one reference."""
        best = {d.name: 0.0 for d in self.documents}
        for m in self.pairs:
            best[m.a.name] = max(best[m.a.name], m.similarity[0])
            best[m.b.name] = max(best[m.b.name], m.similarity[1])
        for m in self.references:
            best[m.a.name] = max(best[m.a.name], m.similarity[0])
        return best

    def flagged(self) -> list[compare.Match]:
        return [m for m in self.pairs if m.score >= self.settings.threshold]


def analyse(assignment: str, notebooks: list[tuple[str, Path | None]],
            settings: SimilaritySettings, workers: int | None = None) -> Result:
    """`notebooks`: (file, notebook) per submission; a None notebook is left out (it could
    not be read; its grade row says why). `workers`: processes comparing (default: CPUs)."""
    shipped = student_code.Given.of(paths.student_notebook(assignment))
    given = compare.boilerplate(shipped.code, settings)
    docs, left_out = [], []
    for file, notebook in notebooks:
        if notebook is None:
            left_out.append((file, "not a readable notebook of this assignment"))
            continue
        try:
            code = student_code.of_notebook(notebook, shipped)
        except Exception as exc:   # nbformat raises many types for a corrupt notebook
            left_out.append((file, f"not a readable notebook ({type(exc).__name__})"))
            continue
        doc = compare.document(file, code, given, settings)
        if doc.prints:
            docs.append(doc)
        else:
            left_out.append((file, f"under {settings.noise_tokens} tokens of code of its own "
                                   "beyond what the notebook gives"))
    refs, labels, missing = [], [], []
    for label, pattern in settings.references.items():
        path = paths.repo_root() / pattern.format(assignment=assignment)
        if path.is_file():
            refs.append(compare.document(label, student_code.of_file(path, shipped), given, settings))
            labels.append(label)
        else:
            missing.append(f"{label} ({pattern.format(assignment=assignment)})")
    pairs = []
    if settings.pairs:
        pairs = compare.compare_pairs(docs, compare.sharing_pairs(docs), settings.threshold, workers)
        pairs.sort(key=lambda m: (-m.score, -min(m.similarity)))
    against = [compare.compare(d, r) for d in docs for r in refs if r.prints]
    # closest first: the most of the submission in the reference, then the most of the reference in it
    against = sorted((m for m in against if m.similarity[0] > 0), key=lambda m: (-m.similarity[0], -m.similarity[1]))
    return Result(settings, docs, pairs, against, labels, missing, left_out)
