"""`make similarity-bench`: time and memory of the similarity report for a synthetic class
(default 500 submissions of silu_ffi, the largest answers, C++ and Python): the catalogue's
answers in turn, each disguised by a random choice of disguise's steps (seeded), so nearly
every pair shares code, the worst case for the pairing.

    python -m autograder.host.similarity.bench [NAME] [--count N] [--seed S] [--workers W]

Prints the figures (wall time of each phase, peak memory of this process); nothing is
asserted (timed tests flake on shared machines).
"""
from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from autograder.host.similarity import batch, disguise, report
from autograder.shared import catalogue, config as settings


def _rss_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024   # KiB on Linux


def synthetic_class(name: str, count: int, seed: int, folder: Path) -> list[tuple[str, Path]]:
    rng = random.Random(seed)
    answers = catalogue.answers(name)
    out = []
    for i in range(count):
        answer = answers[i % len(answers)]
        steps = tuple(s for s in disguise.STEPS if rng.random() < 0.5)
        code = disguise.copy(name, answer.typed, steps) if i >= len(answers) else answer.typed
        out.append((f"s{i:04d}_{answer.name}.ipynb",
                    catalogue.write_submission(name, code, folder / f"s{i:04d}.ipynb")))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", default="silu_ffi")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, help="comparing processes (default: one per CPU)")
    args = parser.parse_args(argv)
    config = settings.load_or_exit().similarity
    with tempfile.TemporaryDirectory() as work:
        t0 = time.perf_counter()
        notebooks = synthetic_class(args.name, args.count, args.seed, Path(work))
        t1 = time.perf_counter()
        base = _rss_mb()
        result = batch.analyse(args.name, notebooks, config, args.workers)
        t2 = time.perf_counter()
        html = report.page(args.name, result)
        t3 = time.perf_counter()
    n = len(result.documents)
    print(f"similarity of {n} submissions of {args.name} ({n * (n - 1) // 2} pairs, "
          f"{len(result.pairs)} sharing code, {len(result.flagged())} at or above {config.threshold:.0%}):")
    print(f"  making the class (not part of the report)  {t1 - t0:7.1f} s")
    print(f"  analyse: read, fingerprint, compare        {t2 - t1:7.1f} s")
    print(f"  report: passages side by side, histogram   {t3 - t2:7.1f} s   ({len(html) / 2**20:.1f} MB of HTML)")
    print(f"  peak memory of the process                 {_rss_mb():7.0f} MB   ({base:.0f} MB before analyse)")
    print(f"  peak memory of a comparing worker          {_rss_mb(resource.RUSAGE_CHILDREN):7.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
