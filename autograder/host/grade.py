"""`make grade ASSIGNMENT=<name> SUBMISSIONS=<dir>`: grade a folder of submissions the
way `otter grade` does, with the limits it lacks, and write the grades and a report.

    python -m autograder.host.grade NAME DIR [--out FOLDER] [--seed N]
                                    [--backend local|swarm] [--registry HOST:PORT]

Runs on the instructor's machine (the host venv, not the image). Each submission gets a
fresh container of the assignment's grading image (Otter's own image build on top of
the configured image) with no network and with the time, memory, process and CPU limits
of otter_config.json's `containers`. A submission that is not a notebook of this assignment, crashes, times out or
runs out of memory gets a row with the reason; the batch never stops for one.
Writes dist/grades/<name>/final_grades.csv and report.html (with the similarity section:
which answers resemble each other or the reference material, autograder.host.similarity).
`--backend swarm` runs the same containers as Swarm jobs over a swarm's nodes
(autograder.host.swarm; run it on a manager); the local daemon is the default.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.shared import paths, config as settings, submissions
from autograder.host import container, gradebook, similarity
from autograder.shared.cases import cases


def grading_image(assignment: str, base_image: str) -> str:
    """Otter's grading image for this zip on top of `base_image` (setup.sh finds the
    environment in place and takes seconds); Docker's cache makes a rebuild free."""
    from otter.grade.containers import build_image
    from otter.run.run_autograder.autograder_config import AutograderConfig
    # The build's progress (printed by python-on-whales, written by buildx to fds 1 and 2)
    # would bury the progress lines: capture it, and show it only when the build fails.
    with tempfile.TemporaryFile("w+") as log, contextlib.redirect_stdout(log):
        sys.__stdout__.flush()
        sys.__stderr__.flush()
        saved = [os.dup(1), os.dup(2)]
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        failed = True
        try:
            image = build_image(str(paths.autograder_zip(assignment)), base_image, assignment,
                                AutograderConfig())
            failed = False
            return image
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            if failed:
                log.seek(0)
                sys.__stderr__.write(log.read()[-5000:])


def grade_all(assignment: str, folder: Path, out: Path, config: settings.Config, *,
              log=print, measure_memory: bool = False, seed: int | None = None,
              backend: str = "local") -> list[gradebook.Row]:
    """Grade every submission in `folder` with the limits of `config` (otter_config.json);
    `seed` regrades with the inputs of an earlier grading (the CSV's seed column)."""
    all_cases = cases(paths.autograder_zip(assignment))
    maximum = sum(c.points for c in all_cases)
    image, limits = grading_image(assignment, config.image), config.containers
    with tempfile.TemporaryDirectory() as work:
        subs = submissions.collect(folder, assignment, Path(work), config.limits.notebook_bytes)
        done, lock = [0], threading.Lock()

        def row(sub: submissions.Submission, outcome: container.Outcome | None, where: str = "") -> gradebook.Row:
            if outcome is None:
                r = gradebook.row(sub.file, None, sub.problem, 0.0)
            else:
                r = gradebook.row(sub.file, outcome.results, outcome.status, outcome.seconds, outcome.grading)
                r.peak_mb = outcome.peak_mb
            with lock:
                done[0] += 1
                log(f"[{done[0]}/{len(subs)}] {sub.file}: {sum(r.scores.values()):g}/{maximum:g} "
                    f"{r.status} ({r.seconds:.0f} s{where})")
            return r

        if backend == "swarm":
            rows = _on_swarm(subs, image, config, seed, row, log)
        else:
            log(f"grading {len(subs)} submissions of {assignment} in {limits.parallel} containers "
                f"(no network, {limits.timeout_s:g} s, {limits.memory}, {limits.cpus:g} CPU each)")

            def one(sub: submissions.Submission) -> gradebook.Row:
                if sub.problem:
                    return row(sub, None)
                return row(sub, container.grade_in_container(image, sub.notebook, limits, measure_memory, seed))

            with ThreadPoolExecutor(limits.parallel) as pool:
                rows = list(pool.map(one, subs))
        log(f"comparing the {len(subs)} submissions' code (similarity)")
        similar = similarity.section(assignment, [(s.file, s.notebook) for s in subs], config.similarity)
    out.mkdir(parents=True, exist_ok=True)
    gradebook.write_csv(out / "final_grades.csv", rows, all_cases)
    gradebook.write_html(out / "report.html", assignment, rows, all_cases, similar)
    return rows


def _on_swarm(subs, image: str, config: settings.Config, seed, row, log) -> list[gradebook.Row]:
    """The gradable submissions as Swarm jobs (autograder.host.swarm); the others get their
    row at once. Every submission gets exactly one row, in the folder's order."""
    from autograder.host import swarm
    rows: dict[int, gradebook.Row] = {i: row(s, None) for i, s in enumerate(subs) if s.problem}
    gradable = [(i, s) for i, s in enumerate(subs) if not s.problem]
    limits = config.containers
    batch = swarm.Batch(image, limits, config.cluster, seed, log)

    def done(k: int, outcome: container.Outcome, node: str) -> None:
        i, sub = gradable[k]
        rows[i] = row(sub, outcome, f", {node}")

    try:
        log(f"pushing {image} to {config.cluster.registry} for the swarm's nodes")
        batch.prepare()
        log(f"grading {len(gradable)} submissions as Swarm jobs on "
            f"{len(swarm.Nodes.read(limits, config.cluster.per_node).slots)} nodes "
            f"(internal network, {limits.timeout_s:g} s, {limits.memory}, {limits.cpus:g} CPU each)")
        batch.run([s for _, s in gradable], done)
    finally:
        batch.cleanup()
    return [rows[i] for i in range(len(subs))]


def front_door(assignment: str, folder: Path) -> str | None:
    """Why `make grade` cannot start, in one sentence (None: it can)."""
    if assignment not in paths.NAMES:
        return f"{assignment!r} is not an assignment; choose one of: {', '.join(paths.NAMES)}."
    if not folder.is_dir():
        return (f"the folder of submissions {str(folder)!r} does not exist; "
                f"give one with SUBMISSIONS=<folder of .ipynb or .zip files>.")
    if not any(p.is_file() and not p.name.startswith(".") for p in folder.iterdir()):
        return f"the folder of submissions {str(folder)!r} is empty; put the .ipynb or .zip files to grade in it."
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, help="default: dist/grades/<assignment>")
    parser.add_argument("--seed", type=int, help="regrade with this seed (final_grades.csv's seed column)")
    parser.add_argument("--backend", choices=("local", "swarm"), default="local",
                        help="local: this machine's Docker daemon; swarm: the swarm this node manages")
    parser.add_argument("--registry", help="swarm: host:port of the registry (default: cluster.registry)")
    args = parser.parse_args(argv)
    problem = front_door(args.assignment, args.submissions)
    if problem:
        print(f"make grade: {problem}", file=sys.stderr)
        return 2
    config = settings.load_or_exit()
    if args.registry:
        config = dataclasses.replace(config, cluster=dataclasses.replace(config.cluster, registry=args.registry))
    out = args.out or paths.repo_root() / "dist" / "grades" / args.assignment
    t0 = time.perf_counter()
    rows = grade_all(args.assignment, args.submissions, out, config, seed=args.seed, backend=args.backend)
    print(f"{len(rows)} submissions in {time.perf_counter() - t0:.0f} s\n"
          f"  {out / 'final_grades.csv'}\n  {out / 'report.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
