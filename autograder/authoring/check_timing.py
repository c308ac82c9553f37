"""How long `grader.check` takes for a student after Run All, measured the way they see it:
the shipped student notebook with an answer typed in (the reference by default), run top to
bottom by a Jupyter kernel (nbclient), and the time of each cell that calls `grader.check`.
Runs in the grading image (JAX); `make bench` prints it per assignment.

    python -m autograder.authoring.check_timing [NAME ...] [--answer reference]

Prints one JSON line per assignment: {"name", "checks": [seconds, ...], "run_all": seconds}.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbclient
import nbformat

from autograder.shared import catalogue, paths


def _seconds(cell) -> float:
    """The cell's run time from the timestamps nbclient records (record_timing)."""
    t = cell.metadata.get("execution", {})
    start, end = t.get("iopub.execute_input"), t.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def measure(name: str, answer: str = "reference") -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        nb = catalogue.submission(name, catalogue.parse(name, paths.solutions(name) / f"{answer}.py").typed)
        nbformat.write(nb, Path(tmp) / f"{name}.ipynb")
        t0 = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=True,
                                resources={"metadata": {"path": tmp}}).execute()
        run_all = time.perf_counter() - t0
    checks = [c for c in nb.cells if c.cell_type == "code" and "grader.check(" in c.source]
    return {"name": name, "checks": [round(_seconds(c), 3) for c in checks], "run_all": round(run_all, 2),
            "all_passed": all("passed" in json.dumps(c.get("outputs", [])) for c in checks)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(paths.NAMES))
    parser.add_argument("--answer", default="reference", help="a catalogue answer (file name without .py)")
    args = parser.parse_args(argv)
    for name in args.names:
        print(json.dumps(measure(name, args.answer)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
