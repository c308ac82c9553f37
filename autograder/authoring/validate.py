"""`make validate`: grade every catalogue answer the way instructors grade submissions
and check that each gets exactly the score and the messages its file states. Runs as
root in the grading image: each answer goes through autograder.runner, as on Gradescope.

    python -m autograder.authoring.validate [NAME ...] [--jobs N]

Also grades each student notebook exactly as shipped, which must not earn full marks,
and every attack in solutions/adversarial/ (score, messages, and what must not happen:
strings in the results, marker files, surviving processes, a flooded log).
Prints a table (answer, expected, got, verdict) and exits 1 on any mismatch.
Each assignment's reference answer is graded first, by accounts of its own, and its
compiled programs are loaded by the gradings after it (warm_cache.py; --cold: not).
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
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

from autograder.authoring import readable, warm_cache
from autograder.shared import paths, catalogue, config as settings
from autograder.runner import sandbox

@dataclass
class Checked:
    """One line of make validate's table: an answer, its expected and actual score."""
    assignment: str
    answer: str
    expected: str
    got: str
    ok: bool
    detail: str
    seconds: float


@dataclass
class Graded:
    score: float
    possible: float
    feedback: str       # every test's output, as the student sees it
    results: str        # results.json, whole
    log_bytes: int      # how much the runner printed (the instructor's log)


def run_runner(submission: Path, assignment: str, root: Path, user: tuple[str, str],
               validate: settings.ValidateSettings, attack: bool = False, xla: dict | None = None) -> Graded:
    """Grade one submission with the trusted runner, in an /autograder-like folder `root`
    holding the autograder zip's files (as on Gradescope). Attacks wait less (the config's
    validate.attack_limits): an endless loop would otherwise hold a job for minutes."""
    with zipfile.ZipFile(paths.autograder_zip(assignment)) as z:
        z.extractall(root / "source")
    if attack:
        limits = root / "source" / settings.LIMITS_FILE
        limits.write_text(json.dumps({**json.loads(limits.read_text()), **validate.attack_limits}))
    (root / "submission").mkdir()
    shutil.copy(submission, root / "submission" / submission.name)
    # A canary secret in the runner's environment: solutions/adversarial/env_secrets.py hunts it.
    env = {**os.environ, "GRADER_TOKEN": "canary-3b1f", **(xla or {})}   # xla: warm_cache's
    proc = subprocess.run([sys.executable, "-I", "-m", "autograder.runner", str(root), *user],
                          capture_output=True, timeout=validate.runner_timeout_s, env=env)
    results = root / "results" / "results.json"
    if proc.returncode != 0 or not results.exists():
        raise RuntimeError(f"the runner failed ({proc.returncode}): "
                           f"{proc.stdout[-1500:].decode(errors='replace')}{proc.stderr[-2000:].decode(errors='replace')}")
    text = results.read_text()
    data = json.loads(text)
    scored = [t for t in data["tests"] if "score" in t]
    feedback = "\n".join([data.get("output", "")] + [t.get("output", "") for t in data["tests"]])
    return Graded(sum(t["score"] for t in scored), sum(t["max_score"] for t in scored), feedback,
                  text, len(proc.stdout) + len(proc.stderr))


def _submission(answer: catalogue.Answer | None, assignment: str, folder: Path) -> Path:
    notebook = catalogue.write_submission(assignment, answer.code if answer else None,
                                          folder / f"{assignment}.ipynb")
    if answer is None or answer.submit == "notebook":
        return notebook
    # grader.export()'s zip, with a .OTTER_LOG that runs a command when unpickled
    # (stock Otter loads it with dill); written here, never loaded.
    payload = pickle.dumps(_Payload())
    path = folder / f"{assignment}.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.write(notebook, notebook.name)
        z.writestr(".OTTER_LOG", payload)
    return path


class _Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pwned-$(id -u)",))


def _check(answer: catalogue.Answer | None, assignment: str, work: Path, users: queue.Queue,
           validate: settings.ValidateSettings, keep: Path | None = None, xla: dict | None = None) -> Checked:
    name = answer.name if answer else "(as shipped)"
    folder = work / assignment / name
    folder.mkdir(parents=True)
    submission = _submission(answer, assignment, folder)
    attack = answer is not None and answer.path.parent.name == "adversarial"
    t0 = time.perf_counter()
    user = users.get()   # accounts per parallel grading (witness, executor): the runner kills all their processes
    try:
        got = run_runner(submission, assignment, folder / "ag", user, validate, attack, xla)
        survivors = sandbox.processes_of(user[0]) + sandbox.processes_of(user[1])
    except Exception as exc:  # a grading failure is a mismatch, reported in the table
        return Checked(assignment, name, f"{answer.score:g}" if answer else "<max", "error", False,
                   str(exc)[:500], time.perf_counter() - t0)
    finally:
        users.put(user)
    seconds = time.perf_counter() - t0
    if keep is not None:   # --feedback: what the student read, for review
        (keep / assignment).mkdir(parents=True, exist_ok=True)
        (keep / assignment / f"{name}.txt").write_text(f"score {got.score:g}/{got.possible:g}\n{got.feedback}")
        record = folder / "ag" / "results" / "grading.json"   # each case's seconds, by where (verdicts.run_file)
        if record.exists():
            cases = json.loads(record.read_text()).get("cases", [])
            (keep / assignment / f"{name}.seconds.json").write_text(json.dumps(
                {"total": seconds, "cases": {c.get("name", ""): c.get("seconds") for c in cases}}))
    unreadable = readable.problems(got.feedback)
    if answer is None:
        ok = got.score < got.possible and not unreadable
        return Checked(assignment, name, f"<{got.possible:g}", f"{got.score:g}", ok,
                   "" if ok else "; ".join(unreadable or ["the untouched notebook earns full marks"]), seconds)
    problems = [f"missing message {m!r}" for m in answer.messages if m not in got.feedback] + unreadable
    problems += [f"{s!r} appears in the results" for s in answer.absent if s in got.results]
    problems += [f"{m} exists after grading" for m in answer.markers if Path(m).exists()]
    if survivors:
        problems.append(f"{len(survivors)} processes of {' and '.join(user)} survived grading")
    if got.log_bytes > validate.log_bytes:
        problems.append(f"the runner printed {got.log_bytes} bytes")
    ok = abs(got.score - answer.score) < 1e-6 and not problems
    detail = "" if ok else "; ".join(problems) + "\nfeedback:\n" + got.feedback
    return Checked(assignment, name, f"{answer.score:g}", f"{got.score:g}", ok, detail, seconds)


def grading_account(name: str) -> str:
    """An unprivileged account for student code (the image's `student` is one; parallel
    gradings each need their own, since the runner kills every process of its account)."""
    if subprocess.run(["id", name], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--no-create-home", name], check=True)
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=[*paths.present(), "adversarial"],
                        help="assignments, and/or 'adversarial' for the attacks (default: all)")
    validate = settings.load().validate
    parser.add_argument("--jobs", type=int, default=validate.jobs)
    parser.add_argument("--only", nargs="+", default=None, metavar="ANSWER",
                        help="grade only these answers (file names without .py), while editing")
    parser.add_argument("--feedback", type=Path, default=None, metavar="DIR",
                        help="write what each answer's student reads to DIR/<assignment>/<answer>.txt "
                             "(and each test's seconds, by where, to <answer>.seconds.json)")
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up: every grading compiles its programs (to measure what the warm-up saves)")
    args = parser.parse_args(argv)
    jobs = [(a, n) for n in args.names if n != "adversarial" for a in [None, *catalogue.answers(n)]]
    if "adversarial" in args.names:
        jobs += [(a, a.assignment) for a in catalogue.answers("adversarial")]
    if args.only:
        jobs = [(a, n) for a, n in jobs if a is not None and a.name in args.only]
    t0 = time.perf_counter()
    users: queue.Queue = queue.Queue()
    for i in range(args.jobs):
        users.put((grading_account(f"grader{i}"), grading_account(f"grader{i}x")))
    # The attacks first: the longest gradings (an endless loop, a memory bomb) then do not end
    # the run on one job while the others wait; the table keeps the order above.
    first = sorted(range(len(jobs)), key=lambda i: jobs[i][0] is None or jobs[i][0].path.parent.name != "adversarial")
    # The reference answers before all: graded by warm accounts, their executables are loaded by
    # every grading after them instead of compiled again (autograder/shared/xla_cache.py).
    references = [i for i in first if not args.cold and jobs[i][0] is not None and jobs[i][0].name == "reference"]
    rest = [i for i in first if i not in references]
    warmed = [jobs[i][1] for i in references]
    with (tempfile.TemporaryDirectory() as tmp, warm_cache.warm(args.jobs, grading_account, warmed) as warm,
          ThreadPoolExecutor(args.jobs) as pool):
        def check(i: int, accounts: queue.Queue, xla: dict) -> Checked:
            return _check(jobs[i][0], jobs[i][1], Path(tmp), accounts, validate, args.feedback, xla)
        done = dict(zip(references, pool.map(lambda i: check(i, warm.accounts, warm.fill(jobs[i][1])), references)))
        done.update(zip(rest, pool.map(
            lambda i: check(i, users, warm.use(jobs[i][1]) if jobs[i][1] in warmed else {}), rest)))
        rows = [done[i] for i in range(len(jobs))]
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
