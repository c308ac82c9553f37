"""The trusted grading process: what run_autograder starts, as root, on Gradescope, under
`otter grade` and under `make grade`.

    python -I -m autograder.runner [AUTOGRADER_DIR [USER [EXECUTOR_USER]]]
                                       (default /autograder student executor)

1. Lock /autograder (source with the hidden tests, submission, results) to root.
2. Take the one notebook out of /autograder/submission (a zip from grader.export() is
   unpacked safely: autograder.shared.submissions); check it is this assignment's.
3. Start the witness (autograder.runner.sandbox): the notebook's cells (autograder.shared.gradable)
   run as `student` with limits.
4. Run Otter's test files here, with a `probe.Remote` as their `env`: each question goes
   to the witness, only data comes back, the verdict is reached in this process; a
   program the witness hands over (its StableHLO text) is run by the executor
   (autograder.runner.executor_client), its own unprivileged process without student code.
5. Kill every student process, then write Otter's results.json and results.pkl (both
   from this process only: the pickle that `otter grade` loads holds no student object)
   and grading.json (the seed and each case's verdict as data: autograder.runner.verdicts).

If the runner itself fails (an exception anywhere in our code: a missing account, a file
we cannot read, a bug), the grading still has a result: results.json holds one failing
test, "Grading error", worth the assignment's points (read from source/tests with
autograder.shared.cases), that tells the student in one neutral sentence that the grader
failed, not their code; grading.json holds the seed and the reason ("grader_error": type,
message, traceback), which is also printed to the instructor's log; results.pkl is Otter's
own result of a failed grading (GradingResults.without_results), so `otter grade`'s CSV
shows the reason as the grading_status, as make grade's does (autograder.host.gradebook).
The runner then exits 0: Gradescope shows results.json whatever the exit code, but
`otter grade` discards results.pkl when the container exits non-zero, and a result that
says "the grader failed" is what both should show. Only when even that result cannot be
written does the runner exit non-zero.
"""
from __future__ import annotations

import json
import os
import pickle
import pwd
import shutil
import stat
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import nbformat

from autograder import assignments as exercises
from autograder.shared import cases, config as settings, gradable, submissions
from autograder.shared.otter_classes import AutograderConfig, ExceptionTestFile, GradingResults
from autograder.shared.probe import Remote, Unanswered
from autograder.shared.safe_files import write_atomic
from autograder.runner import verdicts
from autograder.runner.executor_client import USER as EXECUTOR_USER, Executor
from autograder.runner.libraries import Libraries
from autograder.runner.sandbox import Witness, become_subreaper, kill_user


def lock_down(root: Path) -> None:
    """Only root may enter /autograder, or read any file in it, while student code runs: every
    folder 0700 and every file stripped of its group's and others' bits (the hidden tests
    stay unreadable even to a user who came to own a folder above them). Links are left as
    they are (chmod would follow them)."""
    os.chmod(root, 0o700)
    for folder, subfolders, files in os.walk(root):   # os.walk does not enter linked folders
        for name in subfolders + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if not stat.S_ISLNK(info.st_mode):
                os.chmod(path, stat.S_IMODE(info.st_mode) & 0o700)


def find_notebook(submission: Path, assignment: str, work: Path, max_bytes: int) -> submissions.Submission:
    files = sorted(p for p in submission.iterdir() if p.is_file() and not p.is_symlink()
                   and p.suffix in (".ipynb", ".zip"))
    notebooks = [p for p in files if p.suffix == ".ipynb"] or files
    if len(notebooks) != 1:
        return submissions.Submission("", None, f"the submission holds {len(notebooks)} notebooks "
                                               "(or zips from grader.export()), expected 1")
    return submissions.check(notebooks[0], assignment, work, max_bytes)


def student_copy(notebook: Path, nb, work: Path, user: str, assignment: str) -> Path:
    """A folder owned by the student holding only the notebook, and beside it (root's,
    read-only) the cells of `nb` (the notebook, read) the witness runs; the path of the latter."""
    account = pwd.getpwnam(user)
    home = work / "student"
    (home / "tmp").mkdir(parents=True)
    target = home / notebook.name
    shutil.copyfile(notebook, target)
    for path in (home, home / "tmp", target):
        os.chown(path, account.pw_uid, account.pw_gid)
    os.chmod(home, 0o700)
    exercise = exercises.record(assignment)
    listing = gradable.write(nb, work / "cells.json", exercise.witness_imports, exercise.name)
    os.chmod(listing, 0o644)
    return listing


def _gid_of(user: str) -> int | None:
    try:
        return pwd.getpwnam(user).pw_gid
    except KeyError:   # no such account: the executor says so when a test needs it
        return None


def _pid_of(witness: Witness | None):
    """() -> the live witness's process id (None when it is not running)."""
    return lambda: witness.proc.pid if witness is not None and witness.proc is not None else None


def _unanswerable(reason: str):
    def answer(expr, inputs, serving=False):
        raise Unanswered(reason)
    return answer


def grade_submission(root: Path, config: dict, user: str = "student",
                     executor_user: str = EXECUTOR_USER, seed: int | None = None) -> tuple[GradingResults, dict]:
    """Run every test file against the witness of /autograder/submission's notebook; Otter's
    results and the record of this grading (its seed, drawn unless given; each case's verdict)."""
    source = root / "source"
    limits = settings.runner_limits(source)
    lock_down(root)
    tests = [ExceptionTestFile.from_file(str(p)) for p in sorted((source / "tests").glob("*.py"))]
    record = {"seed": verdicts.draw_seed() if seed is None else seed, "cases": []}
    work = Path(tempfile.mkdtemp(prefix="grading-"))
    os.chmod(work, 0o711)   # the student may pass through to its own folder, not list it
    notes: list[str] = []
    witness = executor = None
    try:
        assignment = config.get("assignment_name", "")
        found = find_notebook(root / "submission", assignment, work, limits.notebook_bytes)
        nb = None if found.problem else nbformat.read(found.notebook, as_version=4)
        if found.problem:
            notes.append(f"Your submission could not be graded: {found.problem}.")
            answer = _unanswerable("{what} was not computed: the submission could not be graded "
                                   f"({found.problem})")
        else:
            witness = Witness(work / "student", limits, user,
                              cells=student_copy(found.notebook, nb, work, user, assignment))
            answer = witness.answer
        executor = Executor(work / "executor", limits, executor_user)
        executor.libraries = Libraries(work / "student", pwd.getpwnam(user).pw_uid, limits,
                                       work / "libraries", _pid_of(witness),
                                       exercises.record(assignment).answer_kernels,
                                       reader_gid=_gid_of(executor_user))
        env = Remote(answer, seed=record["seed"], execute=executor.run)
        clock = lambda: {**env.ask.spent, "notebook": witness.notebook_s if witness else 0.0}  # noqa: E731
        for test_file in tests:
            record["cases"] += verdicts.run_file(test_file, env, clock)
    finally:
        if witness is not None:
            witness.close()
            notes += witness.notes()
            _log_output(witness)
        if executor is not None:
            executor.close()
            _log_output(executor, "the grader's runs of the answer's programs")
        kill_user(user)
        kill_user(executor_user)
        shutil.rmtree(work, ignore_errors=True)
    results = GradingResults(tests)
    if notes:
        results.set_output("\n".join(notes))
    return results, record


def _log_output(process, name: str = "notebook") -> None:
    """A process's output, for the instructor's log only (never the student's results)."""
    if not process.starts:
        return
    text = process.log.decode(errors="replace")
    print(f"--- {name} output ({len(process.log)} bytes kept, {process.dropped} dropped) ---")
    print(text[-20000:])
    print(f"--- end of {name} output ---")


def write_results(results: GradingResults, record: dict, root: Path, config: dict) -> dict:
    output = results.to_gradescope_dict(AutograderConfig(config))
    _write(root, output, record, results)
    return output


def _write(root: Path, output: dict, record: dict, results: GradingResults) -> None:
    """results.json, grading.json (instructors' only) and results.pkl, each replaced whole in
    root's results folder (never written through what stands at their names)."""
    out = root / "results"
    write_atomic(out, "results.json", json.dumps(output, indent=2).encode())
    write_atomic(out, "grading.json", json.dumps(record, indent=2).encode())
    write_atomic(out, "results.pkl", pickle.dumps(results))


GRADER_ERROR_TEST = "Grading error"
GRADER_ERROR_SENTENCE = ("The grader itself failed while grading this submission; this is not a problem with "
                         "your code. Your instructor has been told; there is no need to change or resubmit "
                         "your notebook.")


def possible_points(tests: Path) -> float | None:
    """The assignment's points, from its test files read with ast (never run): None when no
    test file can be read."""
    found = []
    for path in sorted(tests.glob("*.py")):
        try:
            found.append(sum(c.points for c in cases.from_source(path.read_text())))
        except Exception:  # noqa: BLE001 (a file we cannot read adds nothing; the others still count)
            continue
    return sum(found) if found else None


def grader_error(exc: BaseException) -> dict:
    return {"type": type(exc).__name__, "message": str(exc),
            "traceback": "".join(traceback.format_exception(exc))}


def write_grader_error(root: Path, error: dict, seed: int | None, users: tuple[str, ...]) -> dict:
    """results.json, grading.json and results.pkl of a grading the runner itself failed:
    one failing test worth the assignment's points, the neutral sentence, the reason."""
    for user in users:   # no student process may outlive grading, even a failed one
        try:
            kill_user(user)
        except Exception:  # noqa: BLE001 (a missing account has no processes)
            pass
    test = {"name": GRADER_ERROR_TEST, "score": 0, "status": "failed", "visibility": "visible",
            "output": GRADER_ERROR_SENTENCE}
    possible = possible_points(root / "source" / "tests")
    if possible is not None:
        test["max_score"] = possible
    output = {"score": 0, "tests": [test]}   # the sentence once: the test's output is what students read
    reason = f"grader error: {error['type']}: {error['message']}"[:500]
    # Otter's own failed grading as results.pkl: otter grade's CSV shows `reason`
    _write(root, output, {"seed": seed, "cases": [], "grader_error": error},
           GradingResults.without_results(RuntimeError(reason)))
    return output


DEADLINE_GRACE_S = 15.0   # after limits.runner_s: the main thread's time to write what it graded


def _watchdog(seconds: float, root: Path, seed: int | None, users: tuple[str, ...]) -> threading.Timer:
    """The runner's own deadline (limits.runner_s), shorter than the container's: every
    process of `users` is killed (a question in flight fails at once); a grading still
    unwritten DEADLINE_GRACE_S later is recorded as a grader error, and the runner exits 0."""
    def expire() -> None:
        for user in users:
            kill_user(user)
        time.sleep(DEADLINE_GRACE_S)
        error = {"type": "GradingDeadline", "message": f"the grading did not finish within {seconds:.0f} s "
                 "(limits.runner_s)", "traceback": ""}
        print(f"--- the grader failed ---\n{error['message']}\n--- end of the grader's failure ---")
        try:
            write_grader_error(root, error, seed, users)
        finally:
            sys.stdout.flush()
            os._exit(0)
    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def main(root: str = "/autograder", user: str = "student", executor_user: str = EXECUTOR_USER) -> None:
    path = Path(root)
    seed = watchdog = None
    try:
        become_subreaper()
        seed = verdicts.draw_seed()
        watchdog = _watchdog(settings.runner_limits(path / "source").runner_s, path, seed, (user, executor_user))
        config = json.loads((path / "source" / "otter_config.json").read_text())
        results, record = grade_submission(path, config, user, executor_user, seed)
        output = write_results(results, record, path, config)
        watchdog.cancel()
        print(f"score: {results.total} / {results.possible}")
    except Exception as exc:  # noqa: BLE001 (our own failure, whatever it is, still gives a result)
        error = grader_error(exc)
        print(f"--- the grader failed ---\n{error['traceback']}--- end of the grader's failure ---")
        sys.stdout.flush()
        output = write_grader_error(path, error, seed, (user, executor_user))
        if watchdog is not None:
            watchdog.cancel()
        print(f"score: 0 / {output['tests'][0].get('max_score', '?')} (grader error)\n{GRADER_ERROR_SENTENCE}")
    if "output" in output:
        print(output["output"])
    sys.stdout.flush()


if __name__ == "__main__":
    main(*sys.argv[1:4])
