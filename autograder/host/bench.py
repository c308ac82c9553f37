"""`make bench`: how long grading takes and how much memory it needs, measured, printed.

    python -m autograder.host.bench [NAME ...] [--batch 20] [--swarm]

Per assignment (its reference answer, warm image): the wall time of make grade's path
for one submission (the whole command, with Otter's cached image check that a batch pays
once) and of its container alone (what each further submission costs); the same work done bare in one process in the image (execute the
notebook's code, run its tests: autograder.authoring.bare_run, in a container with the
same CPU and memory limits, container start included); the ratio container / bare; and the grading
container's peak memory (the cgroup's own figure). Then each grader.check's seconds after Run
All, as a student waits for it (autograder.authoring.check_timing). Then the throughput of one batch of
`--batch` submissions (catalogue answers of the first assignment, cycled) with 1 and
with 2 containers. `--swarm` (root) adds the same batch on make grade's Swarm backend, on a
two-node swarm on this machine (autograder.host.local_swarm): with the worker drained (one
node) and with both, after the image is in the registry and on both nodes (the push and
the pull are timed apart); the overhead per submission is (one-node swarm − local with
as many containers as the node has slots) / batch. All ratios come from this one run.

    python -m autograder.host.bench --against ../base [--rounds 5] [NAME ...]

compares two versions instead: only the container time of each reference, graded by the
checkout `../base` (a git worktree of the older commit, with its dist/ built by its own
`make assign` and its otter_config.json naming its own image) and by this one, interleaved;
each side's median and the median of the paired ratios (docs/measuring.md).
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.shared import paths, catalogue, config as settings
from autograder.host import grade

QUIET = lambda *_: None  # noqa: E731


def in_image(config: settings.Config, *command: str, repo: str = "rw", workdir: str = "/tmp",
             user: str | None = None) -> str:
    """`command`'s stdout, run in a fresh container of the grading image with make grade's CPU
    and memory limits, no network, this repository at /repo (mounted `repo`: "rw" or "ro") on
    PYTHONPATH, as `user` (None: the image's default)."""
    root = paths.repo_root()
    as_user = ["--user", user, "-e", "HOME=/tmp"] if user else []
    return subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "-v", f"{root}:/repo:{repo}", "-w", workdir, *as_user,
         "--cpus", f"{config.containers.cpus:g}", "--memory", config.containers.memory,
         "--memory-swap", config.containers.memory, "-e", "PYTHONPATH=/repo", config.image, *command],
        capture_output=True, text=True, check=True).stdout


def bare(name: str, config: settings.Config) -> dict:
    """Run autograder.authoring.bare_run on the reference notebook in a fresh container with
    make grade's CPU and memory limits (a floor measured on more CPUs would measure the CPUs)."""
    root = paths.repo_root()
    t0 = time.perf_counter()
    out = in_image(config, "python", "-m", "autograder.authoring.bare_run",
                   f"/repo/{paths.autograder_notebook(name).relative_to(root)}",
                   f"/repo/{paths.autograder_zip(name).relative_to(root)}")
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - t0
    return result


def one_submission(name: str, work: Path, config: settings.Config):
    folder = work / name
    folder.mkdir(parents=True)
    catalogue.write_submission(name, (paths.solutions(name) / "reference.py").read_text(),
                               folder / "reference.ipynb")
    t0 = time.perf_counter()
    one = dataclasses.replace(config, containers=dataclasses.replace(config.containers, parallel=1))
    (row,) = grade.grade_all(name, folder, work / f"{name}-out", one, log=QUIET, measure_memory=True)
    return time.perf_counter() - t0, row


_ONE_SIDE = """import json, shutil, sys, tempfile
from pathlib import Path
from autograder.host import bench
from autograder.shared import config
work = Path(tempfile.mkdtemp(prefix="bench-"))
_, row = bench.one_submission(sys.argv[1], work, config.load_or_exit())
shutil.rmtree(work, ignore_errors=True)
print(json.dumps({"seconds": row.seconds, "score": sum(row.scores.values())}))
"""


def paired(names: list[str], against: Path, rounds: int) -> None:
    """Container seconds of each reference graded `rounds` times by the checkout `against`
    (its code, zips and image) and by this one, interleaved (the machine's speed drifts within
    minutes): each side's median and the median of the paired ratios."""
    here = paths.repo_root()

    def seconds(side: Path, name: str) -> float:
        # Each side's own code (-P: not this folder's), zips and otter_config.json, through the
        # one function both have: one_submission.
        out = subprocess.run([sys.executable, "-P", "-c", _ONE_SIDE, name], cwd=side,
                             env={**os.environ, "PYTHONPATH": str(side)}, capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]
    print(f"{'assignment':22s} {'against':>8s} {'this':>8s} {'ratio':>6s}  (medians of {rounds} interleaved pairs; "
          f"against {against})", flush=True)
    for name in names:
        pairs = [(seconds(against, name), seconds(here, name)) for _ in range(rounds)]
        old, new = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        ratio = statistics.median(n / o for o, n in pairs)
        print(f"{name:22s} {old:7.1f}s {new:7.1f}s {ratio:5.2f}x  pairs: "
              + ", ".join(f"{o:.1f}/{n:.1f}" for o, n in pairs), flush=True)


def profile(name: str, row, imports: dict) -> str:
    """Where the reference's container time went, from grading.json's per-case seconds: the
    notebook's run (the witness's start, import of jax included), questions to the witness,
    the executor's runs (its start and import on the first), host callbacks it had the
    witness serve, the grader's own work, and what lies outside the tests (container start,
    the runner's imports and set-up, results); then the slowest tests."""
    spent = {}
    for v in row.verdicts:
        for where, s in v.get("seconds", {}).items():
            spent[where] = spent.get(where, 0.0) + s
    total = spent.get("total", 0.0)
    notebook, served = spent.get("notebook", 0.0), spent.get("served", 0.0)
    witness = spent.get("witness", 0.0) - notebook
    executor = spent.get("executor", 0.0) - served
    grader = total - witness - notebook - executor - served
    slow = sorted(row.verdicts, key=lambda v: -v.get("seconds", {}).get("total", 0.0))[:3]
    return (f"{name}: container {row.seconds:.1f} s = outside the tests {row.seconds - total:.1f} "
            f"+ notebook {notebook:.1f} + witness questions {witness:.1f} + executor {executor:.1f} "
            f"+ callbacks served {served:.1f} + grader {grader:.1f}; imports: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in imports.items())
            + "; slowest: " + ", ".join(f"{v['test']} {v['seconds']['total']:.1f} s" for v in slow))


IMPORTS = {"python": "pass", "runner": "import autograder.runner.__main__",
           "witness": "import jax, autograder.witness.evaluate",
           "executor": "import autograder.executor.program"}


def import_seconds(config: settings.Config) -> dict:
    """Seconds each process of a grading spends importing, in the image, under make grade's
    CPU limit (the median of three runs; the interpreter's own start included)."""
    timer = ("import statistics, subprocess, sys, time\n"
             "def once(code):\n"
             "    t = time.perf_counter(); subprocess.run([sys.executable, '-I', '-c', code], check=True)\n"
             "    return time.perf_counter() - t\n"
             "print(statistics.median(once(sys.argv[1]) for _ in range(3)))")
    return {what: float(subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--cpus", f"{config.containers.cpus:g}",
         config.image, "python", "-c", timer, statement], capture_output=True, text=True, check=True).stdout)
        for what, statement in IMPORTS.items()}


def check_seconds(names: list[str], config: settings.Config) -> list[str]:
    """Each grader.check cell's seconds after Run All (autograder.authoring.check_timing), run
    unprivileged in the grading image with make grade's CPU and memory limits."""
    out = in_image(config, "python", "-m", "autograder.authoring.check_timing", *names,
                   repo="ro", workdir="/repo", user="student")
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [f"{r['name']:22s} " + ", ".join(f"{s:.2f} s" for s in r["checks"])
            + f"  (Run All {r['run_all']:.1f} s{'' if r['all_passed'] else ', NOT all passed'})" for r in rows]


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


def swarm_throughput(name: str, work: Path, config: settings.Config) -> dict:
    """The batch folder of throughput() graded as Swarm jobs with one node, then two."""
    from python_on_whales import docker
    from autograder.host import swarm
    from autograder.host.local_swarm import LocalSwarm, REGISTRY
    folder = work / "batch"
    config = dataclasses.replace(config, cluster=dataclasses.replace(config.cluster, registry=REGISTRY))
    figures = {}
    with LocalSwarm(workers=1) as local:
        local.nodes_ready()
        image = grade.grading_image(name, config.image)
        t0 = time.perf_counter()
        ref = swarm.push(image, REGISTRY)
        figures["push"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        local.workers[0].docker.image.pull(ref, quiet=True)
        figures["pull"] = time.perf_counter() - t0
        worker = next(n.id for n in docker.node.list() if n.description.hostname == local.workers[0].name)
        figures["slots"] = swarm.Nodes.read(config.containers, config.cluster.per_node).slots[worker]
        for nodes, availability in ((1, "drain"), (2, "active")):
            docker.node.update(worker, availability=availability)
            t0 = time.perf_counter()
            grade.grade_all(name, folder, work / f"swarm-out-{nodes}", config, log=QUIET, backend="swarm")
            figures[nodes] = (time.perf_counter() - t0) / 60
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=paths.present())
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--swarm", action="store_true", help="also the Swarm backend on a local two-node swarm")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="only container times, interleaved with those of another checkout (its dist/ built)")
    parser.add_argument("--rounds", type=int, default=5, help="pairs per assignment with --against")
    args = parser.parse_args(argv)
    if args.against:
        paired(args.names, args.against.resolve(), args.rounds)
        return 0
    config = settings.load_or_exit()
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        print(f"{'assignment':22s} {'make grade':>10s} {'container':>9s} {'bare':>7s} {'ratio':>6s} "
              f"{'peak MB':>8s} {'bare RSS MB':>11s} {'score':>6s}", flush=True)
        profiles = []
        for name in args.names:
            wall, row = one_submission(name, work, config)
            b = bare(name, config)
            total = sum(row.scores.values())
            print(f"{name:22s} {wall:9.1f}s {row.seconds:8.1f}s {b['wall']:6.1f}s {row.seconds / b['wall']:5.2f}x "
                  f"{row.peak_mb or float('nan'):8.0f} {b['peak_rss_mb']:11.0f} "
                  f"{total:g}/{b['score']:g}", flush=True)
            # A reference that does not score full marks measures a failing run, not grading.
            for where, got in (("make grade", total), ("the bare run", b["score"])):
                if got != b["possible"]:
                    raise SystemExit(f"{name}: {where} scored the reference {got:g}/{b['possible']:g}; "
                                     "its time is not a grading's")
            profiles.append((name, row))
        imports = import_seconds(config)
        print("\nwhere the container's time goes (seconds):")
        for name, row in profiles:
            print(profile(name, row, imports), flush=True)
        print("\ngrader.check after Run All (the student's view: reference answer, Jupyter kernel in the image):")
        for line in check_seconds(args.names, config):
            print(line, flush=True)
        minutes = throughput(args.names[0], work, args.batch, config)
        print(f"\nbatch of {args.batch} {args.names[0]} submissions: "
              + ", ".join(f"{n} container{'s' * (n > 1)}: {m:.1f} min ({args.batch / m:.1f}/min)"
                          for n, m in minutes.items())
              + f"; speed-up {minutes[1] / minutes[2]:.2f}x", flush=True)
        if args.swarm:
            f = swarm_throughput(args.names[0], work, config)
            local = minutes[min(f["slots"], 2)]
            print(f"swarm backend (image push {f['push']:.0f} s, pull on the worker {f['pull']:.0f} s, once): "
                  + ", ".join(f"{n} node{'s' * (n > 1)}: {f[n]:.1f} min ({args.batch / f[n]:.1f}/min)" for n in (1, 2))
                  + f"; overhead per submission against local: {(f[1] - local) * 60 / args.batch:+.1f} s "
                  f"(one node, {f['slots']} slots, vs {min(f['slots'], 2)} local containers)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
