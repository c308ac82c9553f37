"""make grade's path on a class with bad input in it: every submission gets a row with a
score or a reason, the batch never stops, the CSV has Otter's columns and the report
escapes what students wrote."""
import csv
import os
import zipfile

import nbformat
import pytest

from autograder.shared import assignments, catalogue, submissions
from autograder.host import grade
from tests.e2e.conftest import CONFIG, config_with, write_submission

NAME = "reduce_sum_rules"


@pytest.fixture(scope="module")
def graded(built, tmp_path_factory):
    built(NAME)
    d = tmp_path_factory.mktemp("class")
    subs = d / "subs"
    subs.mkdir()
    write_submission(NAME, "reference", subs / "a_reference.ipynb")
    write_submission(NAME, "wrong_no_batching", subs / "b_wrong.ipynb")
    reference = (assignments.solutions(NAME) / "reference.py").read_text()
    catalogue.write_submission(NAME, reference + "\ndef _html(*args, **kwargs):\n    raise ValueError('<script>alert(1)</script>')\n"
              "batching.primitive_batchers[custom_reduce_sum_p] = _html\n", subs / "c_html.ipynb")
    catalogue.write_submission(NAME, "while True:\n    pass\n", subs / "d_loop.ipynb")
    catalogue.write_submission(NAME, "import os\nos.abort()\n", subs / "i_abort.ipynb")
    (subs / "e_corrupt.ipynb").write_text("{ this is not json")
    other = catalogue.submission(NAME, "x = 1")
    other.metadata["otter"]["assignment_name"] = "silu_ffi"
    nbformat.write(other, subs / "f_other_assignment.ipynb")
    (subs / "g_notes.txt").write_text("not a notebook")
    with zipfile.ZipFile(subs / "h_traversal.zip", "w") as z:
        z.writestr("../../evil.ipynb", "{}")
    rows = grade.grade_all(NAME, subs, d / "out", config_with(parallel=2, timeout_s=90), log=lambda *_: None)
    return d, {r.file: r for r in rows}


def test_every_submission_gets_a_row(graded):
    _, rows = graded
    score = {f: sum(r.scores.values()) for f, r in rows.items()}
    assert score["a_reference.ipynb"] == 10 and rows["a_reference.ipynb"].status == "Completed"
    assert score["b_wrong.ipynb"] == catalogue.parse(NAME, assignments.solutions(NAME) / "wrong_no_batching.py").score
    assert 0 < score["c_html.ipynb"] < 10
    assert rows["d_loop.ipynb"].status == "timed out after 90 s"
    # the crashing cell is skipped, the notebook runs again without it and is graded
    assert rows["i_abort.ipynb"].status == "Completed"
    assert "crashed with SIGABRT" in rows["i_abort.ipynb"].feedback
    assert "not a valid Jupyter notebook" in rows["e_corrupt.ipynb"].status
    assert "'silu_ffi', not 'reduce_sum_rules'" in rows["f_other_assignment.ipynb"].status
    assert "not a notebook" in rows["g_notes.txt"].status
    assert "top-level notebooks" in rows["h_traversal.zip"].status
    assert all(score[f] == 0 for f in ("d_loop.ipynb", "e_corrupt.ipynb", "g_notes.txt"))
    assert score["i_abort.ipynb"] <= 1   # the given code alone earns reduce_sum_rules' first case


def test_csv_has_otters_columns(graded):
    d, rows = graded
    table = list(csv.reader((d / "out" / "final_grades.csv").open()))
    assert table[0] == ["file", NAME, "total_points_earned", "percent_correct", "grading_status"]
    assert table[1][:3] == ["points-per-question", "10", "10"]
    assert len(table) == 2 + len(rows)


def test_report_escapes_student_output(graded):
    d, _ = graded
    html = (d / "out" / "report.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html     # the student's text is there, escaped
    assert "<script>" not in html
    assert "data:image/png;base64," in html and f"{NAME} - 10" in html


def test_zip_with_a_link_or_traversal_is_refused(tmp_path):
    """Is a zip whose notebook is a symlink, or sits outside the top level, never extracted?"""
    link = zipfile.ZipInfo("n.ipynb")
    link.external_attr = 0o120777 << 16
    for entries in ([(link, "/etc/passwd")], [("../n.ipynb", "{}")], [("sub/n.ipynb", "{}")]):
        path = tmp_path / "s.zip"
        with zipfile.ZipFile(path, "w") as z:
            for info, data in entries:
                z.writestr(info, data)
        s = submissions.check(path, NAME, tmp_path / "work", CONFIG.limits.notebook_bytes)
        assert s.notebook is None and s.problem
    assert not any(p.name == "n.ipynb" for p in tmp_path.rglob("*") if p.parent != tmp_path)
