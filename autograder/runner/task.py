"""A grading task of a cluster (Docker Swarm service, Kubernetes Job): the container's
entry point, as root, where no folder is shared with the instructor's machine.

    python -I -m autograder.runner.task --parts DIR --key FILE --timeout S
                                         --results-bytes N [--index I] [--name FILE.ipynb]

1. The submission arrives as the files I.000, I.001, ... of DIR (the gzip of the notebook,
   cut because a Swarm config holds at most 500 KB; I defaults to a Kubernetes Indexed
   Job's JOB_COMPLETION_INDEX): joined, unpacked (at most the zip's notebook_bytes) into
   /autograder/submission/FILE.ipynb.
2. /autograder/run_autograder grades it, with its output sent to a root-only file (never to
   the container's log) and killed after S seconds.
3. What happened (Otter's results.json, the runner's grading.json, timed out, out of memory,
   exit code, peak memory) goes to the container's log as one frame signed with the key
   file (autograder.shared.logframes), and the task exits 0: a grading's outcome, whatever
   it is, is a result; only an infrastructure failure makes a task fail.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder.shared import config as settings, logframes
from autograder.shared.safe_files import read_regular

ROOT = Path("/autograder")


def assemble(parts: Path, index: str, name: str, max_bytes: int) -> Path:
    """The notebook from the gzip cut into `parts`' files `index`.000, `index`.001, ..."""
    if not re.fullmatch(r"[\w.-]{1,200}\.ipynb", name):
        raise ValueError(f"not a notebook name: {name!r}")
    blob = b"".join(p.read_bytes() for p in sorted(parts.glob(f"{index}.[0-9][0-9][0-9]")))
    with gzip.GzipFile(fileobj=io.BytesIO(blob)) as f:
        data = f.read(max_bytes + 1)
    target = ROOT / "submission" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data[:max_bytes + 1])   # the runner refuses one over the limit, with a reason
    return target


def _cgroup(v1: str, v2: str) -> str:
    for path in (f"/sys/fs/cgroup/memory/{v1}", f"/sys/fs/cgroup/{v2}"):
        try:
            return Path(path).read_text()
        except OSError:
            continue
    return ""


def oom_kills() -> int:
    """How many processes the container's memory limit killed (cgroup v1, then v2)."""
    text = _cgroup("memory.oom_control", "memory.events")
    found = re.search(r"^oom_kill (\d+)", text, re.M)
    return int(found.group(1)) if found else 0


def peak_mb() -> float | None:
    text = _cgroup("memory.max_usage_in_bytes", "memory.peak").strip()
    return int(text) / 2**20 if text.isdigit() else None


def _read_json(path: Path, max_bytes: int) -> dict | None:
    """The regular file `path` (not a link) of at most `max_bytes`, as JSON; else None."""
    data, _ = read_regular(path, max_bytes)
    try:
        return None if data is None else json.loads(data)
    except ValueError:
        return None


def _tail(path: Path, size: int) -> bytes:
    """The last `size` bytes of the log (written by run_autograder here, read back bounded)."""
    with open(path, "rb") as f:
        f.seek(max(os.fstat(f.fileno()).st_size - size, 0))
        return f.read(size)


def grade(index: str, name: str, parts: Path, timeout: float, results_bytes: int) -> dict:
    """Run the grading; what happened, as data."""
    t0 = time.monotonic()
    limits = settings.runner_limits(ROOT / "source")
    assemble(parts, index, name, limits.notebook_bytes)
    log = ROOT / "task.log"
    with open(log, "wb") as out:
        os.chmod(log, 0o600)
        process = subprocess.Popen(["/autograder/run_autograder"], stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code, timed_out = process.wait(timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            code, timed_out = process.wait(), True
    return {"timed_out": timed_out, "oom_killed": oom_kills() > 0, "exit_code": code,
            "seconds": time.monotonic() - t0, "peak_mb": peak_mb(),
            "results": None if timed_out else _read_json(ROOT / "results" / "results.json", results_bytes),
            "grading": None if timed_out else _read_json(ROOT / "results" / "grading.json", results_bytes),
            "log": _tail(log, 20000).decode(errors="replace")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="submission.ipynb")
    parser.add_argument("--parts", type=Path, required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--results-bytes", type=int, required=True)
    parser.add_argument("--index", default=os.environ.get("JOB_COMPLETION_INDEX", ""))
    args = parser.parse_args(argv)
    key = args.key.read_bytes()
    outcome = {"index": args.index,
               **grade(args.index, args.name, args.parts, args.timeout, args.results_bytes)}
    sys.stdout.write("\n".join(logframes.encode(outcome, key)) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
