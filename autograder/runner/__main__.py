"""The trusted grading process: what run_autograder starts, as root, on Gradescope, under
`otter grade` and under `make grade`.

    python -I -m autograder.runner [AUTOGRADER_DIR [USER [EXECUTOR_USER]]]
                                       (default /autograder student executor)

1. Lock /autograder (source with the hidden tests, submission, results) to root.
2. Take the one notebook out of /autograder/submission (a zip from grader.export() is
   unpacked safely: autograder.shared.submissions); check it is this assignment's.
3. Start the witness (autograder.runner.sandbox): the notebook's cells (autograder.shared.cells)
   run as `student` with limits.
4. Run Otter's test files here, with a `probe.Remote` as their `env`: each question goes
   to the witness, only data comes back, the verdict is reached in this process; a
   program the witness hands over (its StableHLO text) is run by the executor
   (autograder.runner.executor), its own unprivileged process without student code.
5. Kill every student process, then write Otter's results.json and results.pkl (both
   from this process only: the pickle that `otter grade` loads holds no student object)
   and grading.json (the seed and each case's verdict as data: autograder.runner.verdicts).
"""
from __future__ import annotations

import json
import os
import pickle
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.shared import cells, config as settings, submissions
from autograder.shared.otter_classes import AutograderConfig, ExceptionTestFile, GradingResults
from autograder.shared.probe import Remote, Unanswered
from autograder.runner import verdicts
from autograder.runner.executor import USER as EXECUTOR_USER, Executor, read_answer_source
from autograder.runner.sandbox import Witness, become_subreaper, kill_user


def lock_down(root: Path) -> None:
    """Only root may enter /autograder while student code runs."""
    os.chmod(root, 0o700)
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            os.chmod(child, 0o700)


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
    listing = cells.write(nb, work / "cells.json", cells.witness_imports(assignment))
    os.chmod(listing, 0o644)
    return listing


def _unanswerable(reason: str):
    def answer(expr, inputs):
        raise Unanswered(reason)
    return answer


def grade_submission(root: Path, config: dict, user: str = "student",
                     executor_user: str = EXECUTOR_USER) -> tuple[GradingResults, dict]:
    """Run every test file against the witness of /autograder/submission's notebook; Otter's
    results and the record of this grading (its seed, each case's verdict)."""
    source = root / "source"
    limits = settings.runner_limits(source)
    lock_down(root)
    tests = [ExceptionTestFile.from_file(str(p)) for p in sorted((source / "tests").glob("*.py"))]
    record = {"seed": verdicts.draw_seed(), "cases": []}
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
        source = cells.answer_kernel_source(assignment)
        executor = Executor(work / "executor", limits, executor_user, read_source=source and (
            lambda: (source, *read_answer_source(work / "student", source, user))))
        env = Remote(answer, seed=record["seed"], execute=executor.run)
        for test_file in tests:
            record["cases"] += verdicts.run_file(test_file, env)
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
    out = root / "results"
    out.mkdir(exist_ok=True)
    (out / "results.json").write_text(json.dumps(output, indent=2))
    (out / "grading.json").write_text(json.dumps(record, indent=2))   # instructors' only
    with open(out / "results.pkl", "wb") as f:
        pickle.dump(results, f)
    return output


def main(root: str = "/autograder", user: str = "student", executor_user: str = EXECUTOR_USER) -> None:
    become_subreaper()
    path = Path(root)
    config = json.loads((path / "source" / "otter_config.json").read_text())
    results, record = grade_submission(path, config, user, executor_user)
    output = write_results(results, record, path, config)
    print(f"score: {results.total} / {results.possible}")
    if "output" in output:
        print(output["output"])
    sys.stdout.flush()


if __name__ == "__main__":
    main(*sys.argv[1:4])
