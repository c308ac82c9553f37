"""`make demo`: the platform's main job on a bundled sample class. For each assignment
it makes submissions from the answer catalogue (the reference, a wrong answer, a cheat, a
notebook whose process aborts, a disguised copy of the reference, and the chapter's appendix
solution pasted and disguised where the chapter has one), grades them with `make grade`'s path and prints
a table of scores with the report of each assignment (its similarity section puts the copies
on top).

    python -m autograder.host.demo [NAME ...]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from autograder.shared import paths, catalogue, config as settings
from autograder.host import grade
from autograder.host.similarity import disguise

CRASH = '"""An answer cell that aborts the process: it is skipped, the rest is graded."""\nimport os\nos.abort()\n'


def samples(name: str, folder: Path) -> dict[str, str]:
    """Write the sample submissions; returns {file: what is expected of it}."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    answers = catalogue.answers(name)
    picks = {"correct": next(a for a in answers if a.name == "reference"),
             "wrong": next(a for a in answers if a.name.startswith("wrong_")),
             "cheat": next(a for a in answers if a.name.startswith("cheat_"))}
    expected = {}
    for kind, answer in picks.items():
        catalogue.write_submission(name, answer.code, folder / f"{kind}.ipynb")
        expected[f"{kind}.ipynb"] = f"{answer.score:g} ({answer.name})"
    catalogue.write_submission(name, CRASH, folder / "crash.ipynb")
    expected["crash.ipynb"] = "0-1 (the crashing cell is skipped)"
    # What the similarity section is for: names, comments and order changed, a helper inlined.
    catalogue.write_submission(name, disguise.copy(name, picks["correct"].code), folder / "copy_of_correct.ipynb")
    expected["copy_of_correct.ipynb"] = "10 (the reference, disguised)"
    appendix = next((a for a in answers if a.name == "alt_chapter_appendix_with_asserts"), None)
    if appendix:
        catalogue.write_submission(name, appendix.code, folder / "appendix.ipynb")
        expected["appendix.ipynb"] = f"{appendix.score:g} (the chapter's appendix solution)"
        catalogue.write_submission(name, disguise.copy(name, appendix.code), folder / "copy_of_appendix.ipynb")
        expected["copy_of_appendix.ipynb"] = f"{appendix.score:g} (the appendix, disguised)"
    return expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=paths.present())
    args = parser.parse_args(argv)
    config = settings.load_or_exit()
    t0 = time.perf_counter()
    table, reports = [], []
    for name in args.names:
        base = paths.repo_root() / "dist" / "demo" / name
        expected = samples(name, base / "submissions")
        rows = grade.grade_all(name, base / "submissions", base, config)
        table += [(name, r.file, expected.get(r.file, "?"), f"{sum(r.scores.values()):g}", r.status) for r in rows]
        reports.append(base / "report.html")
    print(f"\n{'assignment':22s} {'submission':22s} {'expected':36s} {'score':>5s}  status")
    for row in table:
        print(f"{row[0]:22s} {row[1]:22s} {row[2]:36s} {row[3]:>5s}  {row[4]}")
    print("\nreports:\n" + "\n".join(f"  {p}" for p in reports))
    print(f"demo: {len(table)} submissions graded in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
