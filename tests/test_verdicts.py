"""The runner's verdicts: the same TestCaseResults as Otter's own ExceptionTestFile.run
(a failed case's message its concept and sentence), plus each case's concept and sentence as data."""
from otter.test_files import ExceptionTestFile

from autograder.runner import verdicts

SOURCE = '''from otter.test_files import test_case

OK_FORMAT = False

import contextlib
import types

from autograder.shared import checks


@contextlib.contextmanager
def _case(env, *, concept):   # probe.case without a connection: these cases read env itself
    try:
        yield
    except Exception as exc:
        raise checks.verdict(exc, concept)


kit = types.SimpleNamespace(case=_case)

name = "q"
points = None

@test_case(points=1, hidden=False)
def test_good(env):
    with kit.case(env, concept="The answer"):
        checks.expect(env["answer"] == 42, "answer is not 42.")

@test_case(points=2, hidden=True)
def test_bad(env):
    with kit.case(env, concept="The next answer"):
        checks.expect(env["answer"] == 43, "answer is not 43; add one.")
'''


def test_verdicts_match_otters_own_run_and_keep_the_sentence(tmp_path):
    path = tmp_path / "q.py"
    path.write_text(SOURCE)
    otters, ours = ExceptionTestFile.from_file(str(path)), ExceptionTestFile.from_file(str(path))
    otters.run({"answer": 42})
    clock = iter([{"witness": 1.0}, {"witness": 1.5}, {"witness": 1.5}, {"witness": 4.0}])
    got = verdicts.run_file(ours, {"answer": 42}, lambda: next(clock))
    # each case's seconds: what the clock advanced while it ran, and its wall time
    assert [v.pop("seconds")["witness"] for v in got] == [0.5, 2.5]
    assert [r.passed for r in ours.test_case_results] == [r.passed for r in otters.test_case_results]
    # the failed case's message is its concept and sentence, not Otter's "Error at line ..."
    assert ours.test_case_results[1].message == "❌ Test case failed\nThe next answer: answer is not 43; add one."
    assert (ours.score, ours.possible) == (otters.score, otters.possible) == (1, 3)
    assert got == [
        {"name": "q - 1", "question": "q", "test": "test_good", "concept": "The answer", "hidden": False,
         "points": 1, "passed": True, "message": ""},
        {"name": "q - 2", "question": "q", "test": "test_bad", "concept": "The next answer", "hidden": True,
         "points": 2, "passed": False, "message": "answer is not 43; add one."}]


def test_a_given_seed_is_used(monkeypatch):
    monkeypatch.setenv(verdicts.SEED_VARIABLE, "1234")
    assert verdicts.draw_seed() == 1234
    monkeypatch.delenv(verdicts.SEED_VARIABLE)
    assert verdicts.draw_seed() != verdicts.draw_seed()


def test_grader_check_feedback_is_the_concept_and_sentence(tmp_path):
    """The student's grader (autograder.student) gives Otter's own run the same message."""
    import autograder.student.notebook  # noqa: F401 (replaces Otter's error message)
    path = tmp_path / "q.py"
    path.write_text(SOURCE)
    test_file = ExceptionTestFile.from_file(str(path))
    test_file.run({"answer": 42})
    assert test_file.test_case_results[1].message == "❌ Test case failed\nThe next answer: answer is not 43; add one."
