"""make mutants (autograder/authoring/mutants/): the reference answer's mutants cover the five
kinds on every piece, each one change, each a valid answer file; the oracle finds the
reference right and a moved, a thresholded and a re-sourced mutant wrong."""
import ast
import collections
import json
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.authoring.mutants import assignments
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
def test_the_oracle_tells_the_reference_from_wrong_mutants(name, tmp_path):
    """The source is right; a mutant of each kind the module names (KNOWN_WRONG) is wrong.
    The oracle runs as make mutants runs it: a process of its own, in a folder of its own
    (an oracle may patch JAX for its process: silu_ffi's renames FFI targets)."""
    mutants = {m.name: m for m in assignments.mutants(name)}
    batch = [{"name": "source", "kind": "values", "cells": _cells(name, assignments.source(name))}]
    batch += [{"name": w, "kind": mutants[w].kind, "cells": _cells(name, mutants[w].code)}
              for w in assignments.load(name).KNOWN_WRONG]
    (tmp_path / "mutants.json").write_text(json.dumps(batch))
    run = subprocess.run([sys.executable, "-m", "autograder.authoring.mutants.oracle", name, "mutants.json"],
                         cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(paths.repo_root())})
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]   # cells print too
    why = {item["name"]: item["wrong"] for item in map(json.loads, lines)}
    assert set(why) == {item["name"] for item in batch}, run.stderr[-2000:]
    assert why.pop("source") == ""
    for label, reason in why.items():
        assert reason != "", label
