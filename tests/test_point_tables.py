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


@pytest.mark.parametrize("name", paths.NAMES)
def test_the_page_is_short_and_has_one_table_of_tests(name):
    """Issue 39: one page per exercise, at most 1,000 words of markdown, one table of its tests."""
    words, tables = point_tables.markdown(name)
    assert words <= 1000, f"{name}: {words} words of markdown"
    assert tables == 1, f"{name}: {tables} markdown tables list its tests"


@pytest.mark.parametrize("name", paths.NAMES)
def test_every_failure_names_the_chapter_section_to_read(name):
    """Each test's concept maps to a chapter section (the failure's last sentence says which)."""
    from autograder import assignments
    from autograder.shared import chapter
    sections = assignments.get(name).sections
    for concept in point_tables.concepts(name):
        assert sections.get(concept) in chapter.TITLES, (name, concept)
