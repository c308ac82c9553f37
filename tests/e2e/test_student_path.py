"""A student's path for real: the shipped notebook with an answer typed in, executed in
a kernel of the lab image as the unprivileged user (grader.check cells, then
grader.export()), and the exported zip graded by make grade's path."""
import json
import os
from pathlib import Path

from autograder.host import grade
from tests.e2e.conftest import CONFIG, IMAGE, LAB_IMAGE, run, write_submission


def test_check_export_and_grade(built, tmp_path):
    """Does a notebook a student completes pass its public checks, export, and grade 10/10?"""
    built("reduce_sum_rules")
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(work, 0o777)
    os.chmod(write_submission("reduce_sum_rules", "alt_batch_in_place", work / "reduce_sum_rules.ipynb"), 0o666)
    run(["docker", "run", "--rm", "--network", "none", "--user", "1000:1000", "-e", "HOME=/tmp/home",
         "-v", f"{work}:/work", "-w", "/work", LAB_IMAGE,
         "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
         "--ExecutePreprocessor.timeout=600", "reduce_sum_rules.ipynb"], timeout=900)

    executed = json.loads((work / "reduce_sum_rules.ipynb").read_text())
    outputs = json.dumps([c.get("outputs", []) for c in executed["cells"] if c["cell_type"] == "code"])
    assert "reduce_sum_rules passed!" in outputs or "All test cases passed" in outputs, outputs[-2000:]
    exports = sorted(work.glob("reduce_sum_rules_*.zip"))
    assert len(exports) == 1, list(work.iterdir())

    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "student.zip").write_bytes(exports[0].read_bytes())
    rows = grade.grade_all("reduce_sum_rules", submissions, tmp_path / "out", CONFIG, log=lambda *_: None)
    assert [(r.file, sum(r.scores.values()), r.status) for r in rows] == [("student.zip", 10, "Completed")]


def test_the_lab_image_is_the_grading_image_plus_jupyterlab():
    """make lab serves JupyterLab; the grading image does without it (and its 34 packages)."""
    lab = run(["docker", "run", "--rm", "--network", "none", LAB_IMAGE, "jupyter", "lab", "--version"])
    assert lab.stdout.strip().split(".")[0] == "4"
    probe = "import importlib.util as u; print(u.find_spec('jupyterlab') is None, u.find_spec('autograder') is not None)"
    graded = run(["docker", "run", "--rm", "--network", "none", IMAGE, "python", "-c", probe])
    assert graded.stdout.split() == ["True", "True"]
