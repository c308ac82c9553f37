"""make grade's path on a class with bad input in it: every submission gets a row with a
score or a reason, the batch never stops, the CSV has Otter's columns and the report
escapes what students wrote."""
import csv
import os
import zipfile

import nbformat
import pytest
from markupsafe import escape

from autograder.shared import paths, catalogue, submissions
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
    reference = (paths.solutions(NAME) / "reference.py").read_text()
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
    d, rows = graded
    score = {f: sum(r.scores.values()) for f, r in rows.items()}
    assert score["a_reference.ipynb"] == 10 and rows["a_reference.ipynb"].status == "Completed"
    assert score["b_wrong.ipynb"] == catalogue.parse(NAME, paths.solutions(NAME) / "wrong_no_batching.py").score
    assert 0 < score["c_html.ipynb"] < 10
    assert rows["d_loop.ipynb"].status == "timed out after 90 s"
    # a cell that kills the notebook's process: skipped, the rest run again, graded with the reason
    assert rows["i_abort.ipynb"].status == "Completed"
    tags = [c.metadata.get("tags", []) for c in nbformat.read(d / "subs" / "i_abort.ipynb", as_version=4).cells]
    answer = next(i for i, t in enumerate(tags, 1) if catalogue.ANSWER_CELL_TAG in t)   # numbered from 1
    assert f"Cell {answer} of your notebook crashed with SIGABRT" in rows["i_abort.ipynb"].feedback
    assert "not a valid Jupyter notebook" in rows["e_corrupt.ipynb"].status
    assert "'silu_ffi', not 'reduce_sum_rules'" in rows["f_other_assignment.ipynb"].status
    assert "not a notebook" in rows["g_notes.txt"].status
    assert "top-level notebooks" in rows["h_traversal.zip"].status
    assert all(score[f] == 0 for f in ("d_loop.ipynb", "e_corrupt.ipynb", "g_notes.txt"))
    assert score["i_abort.ipynb"] == 1   # the given cell alone earns its point (the task text says so)


def test_csv_has_otters_columns(graded):
    d, rows = graded
    table = list(csv.reader((d / "out" / "final_grades.csv").open()))
    assert table[0] == ["file", NAME, "total_points_earned", "percent_correct", "grading_status", "seed"]
    assert table[1][:3] == ["points-per-question", "10", "10"]
    assert len(table) == 2 + len(rows)
    seeds = {r[0]: r[-1] for r in table[2:]}
    assert seeds["a_reference.ipynb"].isdigit() and seeds["e_corrupt.ipynb"] == ""


def test_verdicts_are_data_from_the_runner(graded):
    """Each case's verdict, concept and sentence come from the runner's grading.json."""
    _, rows = graded
    wrong = rows["b_wrong.ipynb"]
    failed = [v for v in wrong.verdicts if not v["passed"]]
    expected = catalogue.parse(NAME, paths.solutions(NAME) / "wrong_no_batching.py")
    assert len(wrong.verdicts) == 10 and all(v["concept"] for v in wrong.verdicts)
    assert sum(v["points"] for v in wrong.verdicts if v["passed"]) == expected.score
    assert all(any(m in v["message"] for v in failed) for m in expected.messages)
    assert wrong.passed == frozenset(v["name"] for v in wrong.verdicts if v["passed"])
    assert all(v["passed"] for v in rows["a_reference.ipynb"].verdicts)


def test_report_escapes_student_output(graded):
    d, _ = graded
    html = (d / "out" / "report.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html     # the student's text is there, escaped
    assert "<script>" not in html
    assert "data:image/png;base64," in html and f"{NAME} - 10" in html
    # a case is named by its concept, and its failures link to the submissions
    failed = [v for v in graded[1]["b_wrong.ipynb"].verdicts if not v["passed"]]
    assert failed and all(v["concept"] in html for v in failed)
    index = sorted(graded[1]).index("b_wrong.ipynb") + 1
    assert f'<a href="#s{index}" title=' in html
    # the similarity section: c_html is the reference with a helper added, the top pair
    similar = html.split('<section id="similarity">', 1)[1]
    top = similar.split('<table class="pairs">', 1)[1].split("</tr>", 2)[1]
    assert "a_reference.ipynb" in top and "c_html.ipynb" in top and "<mark>" in similar
    # each submission's failed cases, hidden ones included, with their sentences
    section = html.split(f'<h3 id="s{index}">', 1)[1].split("<pre>", 1)[0]
    assert all(escape(v["message"]) in section for v in failed)


def test_regrading_with_the_seed_reproduces_the_result(graded, tmp_path):
    """make grade --seed N regrades with the inputs of the grading that drew N: the same
    verdicts, word for word."""
    d, rows = graded
    first = rows["b_wrong.ipynb"]
    again = tmp_path / "again"
    again.mkdir()
    (again / "b_wrong.ipynb").write_bytes((d / "subs" / "b_wrong.ipynb").read_bytes())
    (row,) = grade.grade_all(NAME, again, tmp_path / "out", CONFIG, log=lambda *_: None, seed=first.seed)
    assert row.seed == first.seed
    def words(verdicts):   # each case's seconds (make bench's profile) are a timing, not a verdict
        return [{k: v for k, v in case.items() if k != "seconds"} for case in verdicts]
    assert words(row.verdicts) == words(first.verdicts) and row.feedback == first.feedback


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
