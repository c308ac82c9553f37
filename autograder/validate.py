"""`make validate`: grade every catalogue answer the way instructors grade submissions
and check that each gets exactly the score and the messages its file states. Runs as
root in the grading image: each answer goes through autograder.runner, as on Gradescope.

    python -m autograder.validate [NAME ...] [--jobs N]

Also grades each student notebook exactly as shipped, which must not earn full marks.
Prints a table (answer, expected, got, verdict) and exits 1 on any mismatch.
"""
from __future__ import annotations

import argparse
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from autograder import assignments, catalogue

TIMEOUT_S = 600


@dataclass
class Row:
    assignment: str
    answer: str
    expected: str
    got: str
    ok: bool
    detail: str
    seconds: float


def grade(notebook: Path, assignment: str, root: Path, user: str) -> tuple[float, float, str]:
    """(score, max score, feedback text) from the trusted runner on one notebook, in an
    /autograder-like folder `root` holding the autograder zip's files (as on Gradescope)."""
    with zipfile.ZipFile(assignments.autograder_zip(assignment)) as z:
        z.extractall(root / "source")
    (root / "submission").mkdir()
    shutil.copy(notebook, root / "submission" / notebook.name)
    proc = subprocess.run([sys.executable, "-I", "-m", "autograder.runner", str(root), user],
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    results = root / "results" / "results.json"
    if proc.returncode != 0 or not results.exists():
        raise RuntimeError(f"the runner failed ({proc.returncode}): {proc.stdout[-1500:]}{proc.stderr[-2000:]}")
    data = json.loads(results.read_text())
    scored = [t for t in data["tests"] if "score" in t]
    feedback = "\n".join(t.get("output", "") for t in data["tests"])
    return (sum(t["score"] for t in scored), sum(t["max_score"] for t in scored), feedback)


def _check(answer: catalogue.Answer | None, assignment: str, work: Path, users: queue.Queue) -> Row:
    name = answer.name if answer else "(as shipped)"
    nb_path = work / assignment / name / f"{assignment}.ipynb"
    nb_path.parent.mkdir(parents=True)
    catalogue.write_submission(assignment, answer.code if answer else None, nb_path)
    t0 = time.perf_counter()
    user = users.get()   # one account per parallel grading: the runner kills all its processes
    try:
        score, possible, feedback = grade(nb_path, assignment, nb_path.parent / "ag", user)
    except Exception as exc:  # a grading failure is a mismatch, reported in the table
        return Row(assignment, name, f"{answer.score:g}" if answer else "<max", "error", False,
                   str(exc)[:500], time.perf_counter() - t0)
    finally:
        users.put(user)
    seconds = time.perf_counter() - t0
    if answer is None:
        return Row(assignment, name, f"<{possible:g}", f"{score:g}", score < possible,
                   "" if score < possible else "the untouched notebook earns full marks", seconds)
    missing = [m for m in answer.messages if m not in feedback]
    ok = abs(score - answer.score) < 1e-6 and not missing
    detail = ""
    if not ok:
        detail = (f"missing messages {missing}; " if missing else "") + "feedback:\n" + feedback
    return Row(assignment, name, f"{answer.score:g}", f"{score:g}", ok, detail, seconds)


def grading_account(name: str) -> str:
    """An unprivileged account for student code (the image's `student` is one; parallel
    gradings each need their own, since the runner kills every process of its account)."""
    if subprocess.run(["id", name], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--no-create-home", name], check=True)
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=assignments.present())
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    jobs = [(a, n) for n in args.names for a in [None, *catalogue.answers(n)]]
    t0 = time.perf_counter()
    users: queue.Queue = queue.Queue()
    for i in range(args.jobs):
        users.put(grading_account(f"grader{i}"))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda job: _check(job[0], job[1], Path(tmp), users), jobs))
    print(f"\n{'assignment':22s} {'answer':34s} {'expected':>8s} {'got':>6s}  verdict   time")
    for r in rows:
        print(f"{r.assignment:22s} {r.answer:34s} {r.expected:>8s} {r.got:>6s}  "
              f"{'ok' if r.ok else 'MISMATCH':8s} {r.seconds:5.1f}s")
    bad = [r for r in rows if not r.ok]
    for r in bad:
        print(f"\n--- {r.assignment}/{r.answer}: expected {r.expected}, got {r.got}\n{r.detail}")
    print(f"\n{len(rows)} gradings in {time.perf_counter() - t0:.0f} s with {args.jobs} jobs")
    print(f"validate: {len(rows) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
