"""`make similarity ASSIGNMENT=<name> SUBMISSIONS=<dir>`: the similarity report of a folder
of submissions, without grading them.

    python -m autograder.host.similarity NAME DIR [--out FOLDER]

Writes <out>/similarity.html (the section make grade's report holds) and similarity.csv
(every pair with a match, and every submission against each reference, best first).
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

from autograder.shared import paths, config as settings, submissions
from autograder.host.similarity import batch, report


def write_csv(path: Path, result: batch.Result) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", "other", "share_of_submission_in_other", "share_of_other_in_submission"])
        for m in sorted(result.pairs + result.references, key=lambda m: -m.score):
            w.writerow([m.a.name, m.b.name, f"{m.similarity[0]:.3f}", f"{m.similarity[1]:.3f}"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment", choices=paths.NAMES)
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, help="default: dist/similarity/<assignment>")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"make similarity: {str(args.submissions)!r} is not a folder of submissions", file=sys.stderr)
        return 2
    config = settings.load_or_exit()
    out = args.out or paths.repo_root() / "dist" / "similarity" / args.assignment
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        subs = submissions.collect(args.submissions, args.assignment, Path(work), config.limits.notebook_bytes)
        result = batch.analyse(args.assignment, [(s.file, s.notebook) for s in subs], config.similarity)
        (out / "similarity.html").write_text(report.page(args.assignment, result))
    write_csv(out / "similarity.csv", result)
    flagged = result.flagged()
    print(f"{len(result.documents)} submissions compared in {time.perf_counter() - t0:.1f} s; "
          f"{len(flagged)} pairs at or above {result.settings.threshold:.0%}")
    for m in flagged[:10]:
        print(f"  {m.score:4.0%}  {m.a.name}  {m.b.name}")
    print(f"  {out / 'similarity.html'}\n  {out / 'similarity.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
