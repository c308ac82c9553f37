"""`make validate`: grade every catalogue answer the way instructors grade submissions
and check that each gets exactly the score and the messages its file states.

    python -m autograder.validate [NAME ...] [--jobs N]

Also grades each student notebook exactly as shipped, which must not earn full marks.
Prints a table (answer, expected, got, verdict) and exits 1 on any mismatch.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
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


def grade(notebook: Path, assignment: str, out: Path) -> tuple[float, float, str]:
    """(score, max score, feedback text) from `otter run` on one notebook."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["otter", "run", "--no-logo", "-a", str(assignments.autograder_zip(assignment)),
                           "-o", str(out), str(notebook)],
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    results = out / "results.json"
    if proc.returncode != 0 or not results.exists():
        raise RuntimeError(f"otter run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    data = json.loads(results.read_text())
    scored = [t for t in data["tests"] if "score" in t]
    feedback = "\n".join(t.get("output", "") for t in data["tests"])
    return (sum(t["score"] for t in scored), sum(t["max_score"] for t in scored), feedback)


def _check(answer: catalogue.Answer | None, assignment: str, work: Path) -> Row:
    name = answer.name if answer else "(as shipped)"
    nb_path = work / assignment / name / f"{assignment}.ipynb"
    nb_path.parent.mkdir(parents=True)
    catalogue.write_submission(assignment, answer.code if answer else None, nb_path)
    t0 = time.perf_counter()
    try:
        score, possible, feedback = grade(nb_path, assignment, nb_path.parent / "out")
    except Exception as exc:  # a grading failure is a mismatch, reported in the table
        return Row(assignment, name, f"{answer.score:g}" if answer else "<max", "error", False,
                   str(exc)[:500], time.perf_counter() - t0)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=assignments.present())
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    jobs = [(a, n) for n in args.names for a in [None, *catalogue.answers(n)]]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda job: _check(job[0], job[1], Path(tmp)), jobs))
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
