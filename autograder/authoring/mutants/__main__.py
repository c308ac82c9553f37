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
import itertools
import json
import queue
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.authoring import validate as validating
from autograder.authoring.mutants import assignments, generate, report
from autograder.shared import catalogue, config as settings, gradable


def _cells(name: str, code: str) -> list[str]:
    """The cells the witness would run of the notebook holding `code` as its answer."""
    return [source for _, source in gradable.gradable_cells(catalogue.submission(name, code))]


def _judged(name: str, mutants: list[generate.Mutant], folder: Path) -> dict[str, str]:
    """The oracle's verdict on each mutant (why it is wrong, "" when equivalent), in one
    process (JAX imported once), in a folder of its own."""
    batch = folder / "mutants.json"
    batch.write_text(json.dumps([{"name": m.name, "kind": m.kind, "cells": _cells(name, m.code)} for m in mutants]))
    run = subprocess.run([sys.executable, "-m", "autograder.authoring.mutants.oracle", name, str(batch)],
                         capture_output=True, text=True, cwd=folder)
    found = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            found[item["name"]] = item["wrong"]
    missing = [m.name for m in mutants if m.name not in found]
    if missing:
        raise SystemExit(f"the oracle stopped before {missing[0]}:\n{run.stderr[-3000:]}")
    return found


def _sample(mutants: list[generate.Mutant], n: int) -> list[generate.Mutant]:
    """n mutants, every kind in turn, each kind's spread over its list (a fixed sample)."""
    kinds: dict[str, list[generate.Mutant]] = {}
    for m in mutants:
        kinds.setdefault(m.kind, []).append(m)
    each = -(-n // len(kinds))
    spread = [items[::max(1, len(items) // each)][:each] for items in kinds.values()]
    return [m for row in itertools.zip_longest(*spread) for m in row if m is not None][:n]


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
        mutants = _sample(mutants, args.sample)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sanity = _judged(args.name, [generate.Mutant("reference", "values", reference, "none")], work)
        if sanity["reference"]:
            raise SystemExit(f"the oracle finds the reference wrong: {sanity['reference']}")
        why = _judged(args.name, mutants, work)
        judged_s = time.perf_counter() - t0
        wrong = [m for m in mutants if why[m.name]]
        users: queue.Queue = queue.Queue()
        for i in range(args.jobs):
            users.put((validating.grading_account(f"grader{i}"), validating.grading_account(f"grader{i}x")))
        done = [0]

        def grade(mutant: generate.Mutant) -> report.Row:
            folder = work / "grade" / mutant.name.replace("/", "_").replace(" ", "-")
            folder.mkdir(parents=True)
            notebook = catalogue.write_submission(args.name, mutant.code, folder / f"{args.name}.ipynb")
            user = users.get()
            started = time.perf_counter()
            try:
                got = validating.run_runner(notebook, args.name, folder / "ag", user, validate)
                row = report.Row(mutant, why[mutant.name], got.score, got.possible, got.feedback,
                                 time.perf_counter() - started)
            except Exception as exc:   # a grading that failed is reported, not a survivor
                row = report.Row(mutant, why[mutant.name], None, None, str(exc)[:2000], time.perf_counter() - started)
            finally:
                users.put(user)
            done[0] += 1
            print(f"\r[{done[0]}/{len(wrong)}] {mutant.name[:70]:70s}", end="", flush=True)
            return row
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(grade, wrong))
    print()
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
