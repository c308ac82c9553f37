"""make mutants (autograder/authoring/mutants/): the reference answer's mutants cover the five
kinds on every piece, each one change, each a valid answer file; the oracle finds the
reference right and a moved, a thresholded and a re-sourced mutant wrong."""
import ast
import collections

import nbformat
import pytest

from autograder.authoring.mutants import generate, oracle, spec
from autograder.shared import catalogue, gradable, paths


def _reference(name: str) -> str:
    return catalogue.parse(name, paths.solutions(name) / "reference.py").typed


@pytest.mark.parametrize("name", sorted(spec.PIECES))
def test_sixty_mutants_or_more_of_every_kind(name):
    mutants = generate.mutants(_reference(name), spec.PIECES[name])
    kinds = collections.Counter(m.kind for m in mutants)
    assert len(mutants) >= 60 and set(kinds) == {"values", "thresholds", "positions", "provenance", "effects"}
    assert len({m.name for m in mutants}) == len(mutants)
    baseline = ast.unparse(ast.parse(_reference(name)))
    for m in mutants:
        assert ast.unparse(ast.parse(m.code)) != baseline, m.name


def _cells(name: str, code: str) -> list[str]:
    """The cells the witness would run, from the master notebook (a clean clone has no
    dist/): its code cells before the question, then the answer's cells."""
    master = nbformat.read(paths.master(name), as_version=4)
    start = next(i for i, c in enumerate(master.cells) if c.source.strip().startswith("# BEGIN QUESTION"))
    master.cells = master.cells[:start]
    return ([source for _, source in gradable.gradable_cells(master)]
            + [source for source, _ in catalogue.split_cells(code)])


def test_the_oracle_tells_the_reference_from_wrong_mutants():
    name = "pure_callback_doubler"
    mutants = {m.name: m for m in generate.mutants(_reference(name), spec.PIECES[name])}
    assert oracle.judge(name, _cells(name, _reference(name))) == ""
    for wrong in ("positions/host_double/reversed/size>4096", "thresholds/host_double/2->3/rank>=5",
                  "provenance/pure_callback_doubler/size>65536", "provenance/host_double/size>4096"):
        assert oracle.judge(name, _cells(name, mutants[wrong].code)) != "", wrong
