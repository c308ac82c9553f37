"""`make bench`: how long grading takes and how much memory it needs, measured, printed.

    python -m autograder.host.bench [NAME ...] [--batch 20]

Per assignment (its reference answer, warm image): the wall time of make grade's path
for one submission (the whole command, with Otter's cached image check that a batch pays
once) and of its container alone (what each further submission costs); the same work done bare in one process in the image (execute the
notebook's code, run its tests: autograder.authoring.bare_run, in a container with the
same CPU and memory limits, container start included); the ratio container / bare; and the grading
container's peak memory (the cgroup's own figure). Then the throughput of one batch of
`--batch` submissions (catalogue answers of the first assignment, cycled) with 1 and
with 2 containers. All ratios come from this one run.
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.shared import assignments, catalogue, config as settings
from autograder.host import grade

QUIET = lambda *_: None  # noqa: E731


def bare(name: str, config: settings.Config) -> dict:
    """Run autograder.authoring.bare_run on the reference notebook in a fresh container with
    make grade's CPU and memory limits (a floor measured on more CPUs would measure the CPUs)."""
    root = assignments.repo_root()
    t0 = time.perf_counter()
    out = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "-v", f"{root}:/repo", "-w", "/tmp",
         "--cpus", f"{config.containers.cpus:g}", "--memory", config.containers.memory,
         "--memory-swap", config.containers.memory,
         "-e", "PYTHONPATH=/repo", config.image, "python", "-m", "autograder.authoring.bare_run",
         f"/repo/{assignments.autograder_notebook(name).relative_to(root)}",
         f"/repo/{assignments.autograder_zip(name).relative_to(root)}"],
        capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - t0
    return result


def one_submission(name: str, work: Path, config: settings.Config):
    folder = work / name
    folder.mkdir(parents=True)
    catalogue.write_submission(name, (assignments.solutions(name) / "reference.py").read_text(),
                               folder / "reference.ipynb")
    t0 = time.perf_counter()
    one = dataclasses.replace(config, containers=dataclasses.replace(config.containers, parallel=1))
    (row,) = grade.grade_all(name, folder, work / f"{name}-out", one, log=QUIET, measure_memory=True)
    return time.perf_counter() - t0, row


def throughput(name: str, work: Path, batch: int, config: settings.Config) -> dict[int, float]:
    folder = work / "batch"
    folder.mkdir()
    answers = itertools.cycle(catalogue.answers(name))
    for i in range(batch):
        a = next(answers)
        catalogue.write_submission(name, a.code, folder / f"{i:02d}_{a.name}.ipynb")
    minutes = {}
    for n in (1, 2):
        t0 = time.perf_counter()
        parallel = dataclasses.replace(config, containers=dataclasses.replace(config.containers, parallel=n))
        grade.grade_all(name, folder, work / f"batch-out-{n}", parallel, log=QUIET)
        minutes[n] = (time.perf_counter() - t0) / 60
    return minutes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=assignments.present())
    parser.add_argument("--batch", type=int, default=20)
    args = parser.parse_args(argv)
    config = settings.load_or_exit()
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        print(f"{'assignment':22s} {'make grade':>10s} {'container':>9s} {'bare':>7s} {'ratio':>6s} "
              f"{'peak MB':>8s} {'bare RSS MB':>11s} {'score':>6s}", flush=True)
        for name in args.names:
            wall, row = one_submission(name, work, config)
            b = bare(name, config)
            print(f"{name:22s} {wall:9.1f}s {row.seconds:8.1f}s {b['wall']:6.1f}s {row.seconds / b['wall']:5.2f}x "
                  f"{row.peak_mb or float('nan'):8.0f} {b['peak_rss_mb']:11.0f} "
                  f"{sum(row.scores.values()):g}/{b['score']:g}", flush=True)
        minutes = throughput(args.names[0], work, args.batch, config)
        print(f"\nbatch of {args.batch} {args.names[0]} submissions: "
              + ", ".join(f"{n} container{'s' * (n > 1)}: {m:.1f} min ({args.batch / m:.1f}/min)"
                          for n, m in minutes.items())
              + f"; speed-up {minutes[1] / minutes[2]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
