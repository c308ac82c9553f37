"""The point table each student reads (the master notebook's "How your answer is scored"
cell) lists exactly the notebook's tests, in order, with their points and visibility, and
names the exercise's core. The table lives in the notebook only (docs/verdicts.md links to it)."""
import pytest

from autograder.authoring import point_tables
from autograder.shared import paths


@pytest.mark.parametrize("name", paths.NAMES)
def test_table_lists_every_test_with_its_points(name):
    text = point_tables.cell(name)
    assert point_tables.rows(text) == point_tables.tests(name)
    total = sum(points for _, _, points in point_tables.tests(name))
    assert f"Total: {total:g} points." in text
    assert "**The core of this exercise:" in text
