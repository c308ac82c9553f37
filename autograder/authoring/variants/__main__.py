"""`make variants ASSIGNMENT=<name>`: rewrite the assignment's answer in ways that keep it
correct (generate.py, assignments/<name>.py), confirm each with make mutants' oracle (a
variant the oracle finds wrong is the generator's mistake: reported, not graded), grade the
rest as make validate grades a catalogue answer, and report every variant that lost points
(refused: a valid answer the grader does not give full marks). A variant the assignment's
module lists in STATED (refused, with why: docs/variants.md) is reported apart; one that keeps
full marks while listed is an error too (the statement is stale).

    python -m autograder.authoring.variants NAME [--jobs 2] [--sample N] [--match TEXT] [--out dist/variants]

Runs as root in the grading image (like validate and make mutants). Exit 1 when a variant is
refused, is found wrong by the oracle or its grading failed. `--sample N`: N variants, every
kind in turn (what CI runs: make variants-sample).
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

from autograder.authoring import grading_pool
from autograder.authoring.mutants import oracle
from autograder.authoring.mutants.report import failures
from autograder.authoring.variants import assignments
from autograder.shared import config as settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=assignments.NAMES)
    validate = settings.load().validate
    parser.add_argument("--jobs", type=int, default=validate.jobs)
    parser.add_argument("--sample", type=int, default=0, help="grade only N variants, every kind in turn")
    parser.add_argument("--match", default="", help="only the variants whose name holds this text")
    parser.add_argument("--out", type=Path, default=Path("dist/variants"))
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    variants = [v for v in assignments.variants(args.name) if args.match in v.name]
    if args.sample:
        variants = grading_pool.spread(variants, args.sample)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        why = oracle.judged(args.name, variants, work)
        kept = [v for v in variants if not why[v.name]]
        graded = grading_pool.grade_all(args.name, [(v.name, v.code) for v in kept], work, args.jobs, validate)
    seconds = time.perf_counter() - t0
    stated = assignments.load(args.name).STATED
    lost = [(v, g) for v, g in zip(kept, graded) if g.score is None or g.score < g.possible]
    refused = [(v, g) for v, g in lost if v.name not in stated]
    # a variant stated refused that keeps full marks now: the statement is stale
    stale = [v for v, g in zip(kept, graded) if v.name in stated and (v, g) not in lost]
    folder = args.out / args.name
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "variants.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["variant", "kind", "change", "score", "possible", "seconds", "failures"])
        for v, g in zip(kept, graded):
            out.writerow([v.name, v.kind, v.change, g.score, g.possible, f"{g.seconds:.1f}", failures(g.feedback)])
        for v in variants:
            if why[v.name]:
                out.writerow([v.name, v.kind, v.change, "", "", "", f"not a variant (the oracle): {why[v.name]}"])
    print(f"{args.name}: {len(variants)} variants, {len(variants) - len(kept)} found wrong by the oracle, "
          f"{len(kept) - len(lost)} kept full marks, {len(lost) - len(refused)} refused as stated, "
          f"{len(refused)} refused, in {seconds:.0f} s; report {folder / 'variants.csv'}")
    for v in variants:
        if why[v.name]:
            print(f"  not a variant {v.name}: {why[v.name]}")
    for v, g in refused:
        print(f"  refused {v.name}: {g.score}/{g.possible}: {failures(g.feedback)[:400]}")
    for v, g in lost:
        if v.name in stated:
            print(f"  refused as stated {v.name}: {g.score}/{g.possible} ({stated[v.name]})")
    for v in stale:
        print(f"  stated refused, yet full marks: {v.name} (remove it from STATED)")
    return 1 if refused or stale or len(kept) < len(variants) else 0


if __name__ == "__main__":
    sys.exit(main())
