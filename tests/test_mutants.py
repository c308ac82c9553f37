"""make mutants (autograder/authoring/mutants/): the reference answer's mutants cover the five
kinds on every piece, each one change, each a valid answer file; the oracle finds the
reference right and a moved, a thresholded and a re-sourced mutant wrong."""
import ast
import collections

import nbformat
import pytest

from autograder.authoring.mutants import assignments, oracle
from autograder.shared import catalogue, gradable, paths


@pytest.mark.parametrize("name", assignments.NAMES)
def test_sixty_mutants_or_more_of_every_kind(name):
    """Every kind the assignment has pieces for (effects: its host functions), each mutant
    one valid Python answer that differs from the source."""
    module, mutants = assignments.load(name), assignments.mutants(name)
    kinds = collections.Counter(m.kind for m in mutants)
    expected = {"values", "thresholds", "positions", "provenance"} | (
        {"effects"} if any(p.host for p in module.PIECES) else set())
    assert len(mutants) >= 60 and set(kinds) == expected, kinds
    assert len({m.name for m in mutants}) == len(mutants)
    baseline = ast.unparse(ast.parse(assignments.source(name)))
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


@pytest.mark.parametrize("name", assignments.NAMES)
def test_the_oracle_tells_the_reference_from_wrong_mutants(name, tmp_path, monkeypatch):
    """The source is right; a mutant of each kind the module names (KNOWN_WRONG) is wrong."""
    mutants = {m.name: m for m in assignments.mutants(name)}
    source = _cells(name, assignments.source(name))
    wrong = {w: _cells(name, mutants[w].code) for w in assignments.load(name).KNOWN_WRONG}
    monkeypatch.chdir(tmp_path)   # an answer writes files (silu.cc) where it runs
    assert oracle.judge(name, source) == ""
    for label, cells in wrong.items():
        assert oracle.judge(name, cells) != "", label
