"""Grade many answers of one assignment as `make validate` grades a catalogue answer
(autograder.runner as root in the grading image, each grading under its own pair of accounts,
`jobs` at a time): what make mutants and make variants share."""
from __future__ import annotations

import itertools
import queue
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring import validate as validating
from autograder.shared import catalogue, config as settings


@dataclass
class Graded:
    score: float | None      # None: the grading failed (feedback says why)
    possible: float | None
    feedback: str
    seconds: float


def spread(items: list, n: int) -> list:
    """n of `items` (each with a .kind), every kind in turn, each kind's spread over its list
    (a fixed sample: what CI grades)."""
    kinds: dict[str, list] = {}
    for item in items:
        kinds.setdefault(item.kind, []).append(item)
    each = -(-n // len(kinds))
    spread_out = [found[::max(1, len(found) // each)][:each] for found in kinds.values()]
    return [item for row in itertools.zip_longest(*spread_out) for item in row if item is not None][:n]


def grade_all(assignment: str, answers: list[tuple[str, str]], work: Path, jobs: int,
              validate: settings.ValidateSettings) -> list[Graded]:
    """Each (label, code) graded in a folder of its own under `work`, in order."""
    users: queue.Queue = queue.Queue()
    for i in range(jobs):
        users.put((validating.grading_account(f"grader{i}"), validating.grading_account(f"grader{i}x")))
    done = [0]

    def grade(answer: tuple[str, str]) -> Graded:
        label, code = answer
        folder = work / "grade" / label.replace("/", "_").replace(" ", "-")
        folder.mkdir(parents=True)
        notebook = catalogue.write_submission(assignment, code, folder / f"{assignment}.ipynb")
        user = users.get()
        started = time.perf_counter()
        try:
            got = validating.run_runner(notebook, assignment, folder / "ag", user, validate)
            graded = Graded(got.score, got.possible, got.feedback, time.perf_counter() - started)
        except Exception as exc:   # a grading that failed is reported as such
            graded = Graded(None, None, str(exc)[:2000], time.perf_counter() - started)
        finally:
            users.put(user)
        done[0] += 1
        print(f"\r[{done[0]}/{len(answers)}] {label[:70]:70s}", end="", flush=True)
        return graded
    with ThreadPoolExecutor(jobs) as pool:
        graded = list(pool.map(grade, answers))
    print()
    return graded
