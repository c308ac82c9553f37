"""The runner's own failure still gives a result (autograder/runner/__main__.py `main`):
results.json with one failing "Grading error" test worth the assignment's points and a
neutral sentence, grading.json with the reason, results.pkl that `otter grade` reads as a
failed grading, and exit code 0. make grade's row names it a grader error."""
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import otter  # noqa: F401  (whole, first: the runner's otter_classes would register it without its __init__,
import pytest  # and tests collected after this one use otter.Notebook)

from autograder.runner import __main__ as runner
from autograder.shared import config as settings

ROOT = Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "otter_config.json").read_text())
NOBODY = "no-such-account-for-this-test"

TESTS = '''from otter.test_files import test_case

OK_FORMAT = False

name = "q"
points = None

@test_case(points=1, hidden=False)
def test_answer(env):
    from autograder.shared import checks, probe
    ask = probe.connect(env)
    checks.expect(ask.run("answer") == 42, "answer is not 42.")

@test_case(points=2, hidden=True)
def test_hidden(env):
    from autograder.shared import checks, probe
    ask = probe.connect(env)
    checks.expect(ask.run("answer") == 42, "answer is not 42.")
'''
POINTS = 3   # the two cases of TESTS


def _autograder(tmp_path: Path) -> Path:
    """An /autograder folder as the zip unpacks it: one test file worth POINTS, and a
    notebook setting answer = 42 in submission/."""
    root = tmp_path / "autograder"
    (root / "source" / "tests").mkdir(parents=True)
    (root / "source" / "files").mkdir()
    (root / "submission").mkdir()
    config = settings.parse(DATA)
    zip_config = settings.zip_config(config, {"assignment_name": "q", "lang": "python"})
    (root / "source" / "otter_config.json").write_text(json.dumps(zip_config))
    (root / "source" / settings.LIMITS_FILE).write_text(json.dumps(settings.zip_limits(config, {})))
    (root / "source" / "tests" / "q.py").write_text(TESTS)
    nbformat.write(_notebook(), root / "submission" / "q.ipynb")
    return root


def _notebook():
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("answer = 42")])


def _run(root: Path, user: str = "student") -> subprocess.CompletedProcess:
    """The runner as run_autograder starts it, but from this checkout (`python -I` would
    import the image's installed copy)."""
    return subprocess.run([sys.executable, "-m", "autograder.runner", str(root), user, NOBODY],
                          capture_output=True, text=True, cwd="/", timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _expect_grader_error(root: Path, error_type: str, words: str, possible=POINTS) -> dict:
    """results.json holds only the grading-error test (worth `possible`) with the neutral
    sentence; grading.json and results.pkl hold the reason. Returns grading.json."""
    results = json.loads((root / "results" / "results.json").read_text())
    expected = {"name": runner.GRADER_ERROR_TEST, "score": 0, "status": "failed", "visibility": "visible",
                "output": runner.GRADER_ERROR_SENTENCE}
    if possible is not None:
        expected["max_score"] = possible
    assert results == {"score": 0, "tests": [expected]}
    assert "not a problem with your code" in runner.GRADER_ERROR_SENTENCE
    grading = json.loads((root / "results" / "grading.json").read_text())
    assert grading["cases"] == [] and isinstance(grading["seed"], int)
    error = grading["grader_error"]
    assert error["type"] == error_type and words in error["message"], error
    assert error["traceback"].startswith("Traceback") and words in error["traceback"]
    with open(root / "results" / "results.pkl", "rb") as f:
        pickled = pickle.load(f)
    assert pickled.has_catastrophic_failure()
    assert str(pickled.catastrophic_error).startswith(f"grader error: {error_type}: ")
    assert words in str(pickled.catastrophic_error)
    return grading


def _boom(*args, **kwargs):
    raise ValueError("a bug in the grader's own code")


def _half_written(results, record, root, config):
    """write_results that writes Otter's results, then fails."""
    runner_write_results(results, record, root, config)
    raise OSError("the disk filled up after results.json")


runner_write_results = runner.write_results


@pytest.mark.parametrize("target, fake, words", [
    ("grade_submission", _boom, "a bug in the grader's own code"),
    ("write_results", _half_written, "the disk filled up"),
])
def test_an_exception_in_our_code_still_gives_a_result(tmp_path, monkeypatch, capsys, target, fake, words):
    root = _autograder(tmp_path)
    if target == "write_results":   # a grading that ran (its notebook is not run: no witness here)
        monkeypatch.setattr(runner, "grade_submission", lambda root, config, *a: (
            runner.GradingResults([]), {"seed": 7, "cases": []}))
    monkeypatch.setattr(runner, target, fake)
    monkeypatch.setenv(settings.SEED_VARIABLE, "1234")
    runner.main(str(root), NOBODY, NOBODY)   # returns: the exit code is 0
    grading = _expect_grader_error(root, "ValueError" if target == "grade_submission" else "OSError", words)
    assert grading["seed"] == 1234   # drawn before the failure: a regrade reproduces its inputs
    log = capsys.readouterr().out
    assert "--- the grader failed ---" in log and "Traceback" in log and words in log
    assert runner.GRADER_ERROR_SENTENCE in log


def test_a_missing_account_still_gives_a_result(tmp_path):
    root = _autograder(tmp_path)
    done = _run(root, user="no-such-student")
    assert done.returncode == 0, done.stderr
    _expect_grader_error(root, "KeyError", "no-such-student")
    assert "no-such-student" in done.stdout and "Traceback" in done.stdout


def test_a_zip_we_cannot_read_still_gives_a_result(tmp_path):
    """A zip whose notebook entry says it is encrypted: zipfile raises RuntimeError, which the
    submission check does not expect."""
    root = _autograder(tmp_path)
    (root / "submission" / "q.ipynb").unlink()
    path = root / "submission" / "q.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("q.ipynb", nbformat.writes(_notebook()))
    data = bytearray(path.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):   # local and central headers
        data[data.index(signature) + flags] |= 1                          # bit 0: encrypted
    path.write_bytes(bytes(data))
    done = _run(root)
    assert done.returncode == 0, done.stderr
    _expect_grader_error(root, "RuntimeError", "encrypted")


def test_a_corrupt_zip_is_the_submissions_problem_not_the_graders(tmp_path):
    """Bytes that are no zip: the submission check's own reason, graded as usual (every test
    fails with it), not a grader error."""
    root = _autograder(tmp_path)
    (root / "submission" / "q.ipynb").unlink()
    (root / "submission" / "q.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    done = _run(root)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert "not a readable zip file" in results["output"]
    assert runner.GRADER_ERROR_TEST not in {t["name"] for t in results["tests"]}
    assert "grader_error" not in json.loads((root / "results" / "grading.json").read_text())


@pytest.mark.parametrize("damage, error_type, words", [
    (lambda root: (root / "source" / "otter_config.json").unlink(), "FileNotFoundError", "otter_config.json"),
    (lambda root: (root / "source" / "otter_config.json").write_text("{ not json"), "JSONDecodeError", "Expecting"),
    (lambda root: (root / "source" / settings.LIMITS_FILE).unlink(), "ConfigError", "limits.json"),
])
def test_a_missing_or_corrupt_config_still_gives_a_result(tmp_path, damage, error_type, words):
    root = _autograder(tmp_path)
    damage(root)
    done = _run(root)
    assert done.returncode == 0, done.stderr
    _expect_grader_error(root, error_type, words)


def test_the_points_come_from_the_test_files_that_can_be_read(tmp_path):
    """A test file that does not parse fails the grading; the others still give its points."""
    root = _autograder(tmp_path)
    (root / "source" / "tests" / "r.py").write_text("def test(:\n")
    done = _run(root)
    assert done.returncode == 0, done.stderr
    _expect_grader_error(root, "SyntaxError", "r.py")


def test_without_readable_test_files_the_points_are_left_to_gradescope(tmp_path):
    root = _autograder(tmp_path)
    (root / "source" / "tests" / "q.py").unlink()
    (root / "source" / "otter_config.json").unlink()
    done = _run(root)
    assert done.returncode == 0, done.stderr
    _expect_grader_error(root, "FileNotFoundError", "otter_config.json", possible=None)


def test_make_grade_names_a_grader_error_in_its_row():
    pytest.importorskip("jinja2")
    from autograder.host import gradebook
    results = {"score": 0, "tests": [{"name": runner.GRADER_ERROR_TEST, "score": 0, "max_score": 3,
                                      "visibility": "visible", "output": runner.GRADER_ERROR_SENTENCE}]}
    grading = {"seed": 5, "cases": [], "grader_error": {"type": "KeyError", "message": "'x'\nmore",
                                                        "traceback": "Traceback ..."}}
    row = gradebook.row("a.ipynb", results, "Completed", 1.0, grading)
    assert row.status == "grader error: KeyError: 'x'" and row.seed == 5
    assert runner.GRADER_ERROR_SENTENCE in row.feedback and sum(row.scores.values()) == 0
    assert gradebook.row("a.ipynb", results, "Completed", 1.0, {"seed": 5, "cases": []}).status == "Completed"
