"""`make mutants ASSIGNMENT=<name>`: generate the reference answer's mutants, judge each with
the oracle (wrong, or equivalent: dropped and counted), grade the wrong ones as
`make validate` grades a catalogue answer (autograder.runner, in parallel, each its own
accounts), and write the report of the survivors (wrong mutants at full marks).

    python -m autograder.authoring.mutants NAME [--jobs 2] [--sample N] [--match TEXT] [--out dist/mutants]

Runs as root in the grading image (like validate). `--sample N` grades N mutants, every
kind in turn (the fixed sample CI runs: make mutants-sample); the report says how many ran in how long.
"""
from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import time
from pathlib import Path

from autograder.authoring import grading_pool
from autograder.authoring.mutants import assignments, generate, oracle, report
from autograder.shared import config as settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=assignments.NAMES)
    validate = settings.load().validate
    parser.add_argument("--jobs", type=int, default=validate.jobs)
    parser.add_argument("--sample", type=int, default=0, help="grade only N mutants, spread over the list")
    parser.add_argument("--match", default="", help="only the mutants whose name holds this text")
    parser.add_argument("--out", type=Path, default=Path("dist/mutants"))
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    reference = assignments.source(args.name)
    mutants = [m for m in assignments.mutants(args.name) if args.match in m.name]
    if args.sample:
        mutants = grading_pool.spread(mutants, args.sample)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sanity = oracle.judged(args.name, [generate.Mutant("reference", "values", reference, "none")], work)
        if sanity["reference"]:
            raise SystemExit(f"the oracle finds the reference wrong: {sanity['reference']}")
        why = oracle.judged(args.name, mutants, work)
        judged_s = time.perf_counter() - t0
        wrong = [m for m in mutants if why[m.name]]
        graded = grading_pool.grade_all(args.name, [(m.name, m.code) for m in wrong], work, args.jobs, validate)
        rows = [report.Row(m, why[m.name], g.score, g.possible, g.feedback, g.seconds) for m, g in zip(wrong, graded)]
    seconds = time.perf_counter() - t0
    written = report.write(args.out / args.name, args.name, ast.unparse(ast.parse(reference)) + "\n", rows,
                           generated=len(mutants), equivalent=len(mutants) - len(wrong),
                           judged_s=judged_s, seconds=seconds)
    survivors = [r for r in rows if r.survived]
    print(f"{args.name}: {len(mutants)} mutants, {len(mutants) - len(wrong)} equivalent, "
          f"{len(rows) - len(survivors)} killed, {len(survivors)} survived, in {seconds:.0f} s; report {written}")
    for r in survivors:
        print(f"  survivor {r.mutant.name}: {r.why}")
    failed = [r for r in rows if r.score is None]
    for r in failed:
        print(f"  grading failed {r.mutant.name}: {r.feedback[:300]}")
    return 1 if survivors or failed else 0


if __name__ == "__main__":
    sys.exit(main())
