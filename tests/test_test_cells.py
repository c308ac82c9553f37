"""make assign refuses a master notebook whose test cell has a typo, naming the cell."""
import json
from pathlib import Path

import pytest

from autograder.authoring import test_cells
from autograder.shared import paths

ROOT = Path(__file__).resolve().parents[1]
NAMES = paths.NAMES

GOOD = '''""" # BEGIN TEST CONFIG
points: 1
""" # END TEST CONFIG
def test_values(env):
    import numpy as np
    from autograder.shared import checks, probe

    with probe.case(env, concept="f") as ask:
        x = ask.normal(1, (3,))
        checks.expect_close(ask.run("f(x)", x=x), np.asarray(x, np.float64), what="f(x)")
'''


def _notebook(tmp_path: Path, test_source: str) -> Path:
    cell = lambda kind, src: {"cell_type": kind, "metadata": {}, "source": src.splitlines(True),
                              **({"outputs": [], "execution_count": None} if kind == "code" else {})}
    nb = {"cells": [cell("raw", "# BEGIN TESTS"), cell("code", test_source), cell("raw", "# END TESTS")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "a.ipynb"
    path.write_text(json.dumps(nb))
    return path


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_test_cells_are_clean(name):
    path = ROOT / "assignments" / name / f"{name}.ipynb"
    assert len(test_cells.test_cells(path)) >= 5
    assert test_cells.problems(path) == []


@pytest.mark.parametrize("typo, problem", [
    ("", None),
    (("np.asarray(x, np.float64)", "numpy.asarray(x, np.float64)"), "cell 2 (test_values): unknown name 'numpy'"),
    (("checks.expect_close(", "checks.expect_closee("), "cell 2 (test_values): checks.expect_closee does not exist"),
    (("    with probe.case(env,", "    with probe.case(env,,"), "cell 2 (test_values): syntax error on line 8"),
    (("from autograder.shared import checks, probe", "from autograder.shared import checks, probes"),
     "cannot import 'autograder.shared.probes'"),
])
def test_a_typo_names_the_cell(tmp_path, typo, problem):
    source = GOOD.replace(*typo) if typo else GOOD
    found = test_cells.problems(_notebook(tmp_path, source))
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found
