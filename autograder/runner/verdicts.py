"""Each test case's verdict as data, beside Otter's results: results/grading.json holds
the seed the grading drew and, per case, its name, test function, concept, visibility,
points, whether it passed and the sentence it failed with. make grade's CSV and report
read this file, never Otter's printed text. Gradescope shows students results.json only.

`run_file` is Otter's ExceptionTestFile.run (otter/test_files/exception_test.py) written
out, because Otter keeps only the formatted message: it builds the same TestCaseResult
objects (so results.json and results.pkl are Otter's own) and also keeps the sentence.
A failed case's message is its concept and sentence (checks.feedback), not Otter's
"Error at line ..." with the quoted test line.
"""
from __future__ import annotations

import os
import secrets
import time

from autograder.shared import checks
from autograder.shared.cases import from_source
from autograder.shared.config import SEED_VARIABLE
from autograder.shared.otter_classes import ExceptionTestFile, TestCaseResult


def draw_seed() -> int:
    """The seed of this grading's inputs: $JAX_INTEROP_SEED when the instructor regrades,
    otherwise a fresh one."""
    given = os.environ.get(SEED_VARIABLE, "").strip()
    return int(given) if given else secrets.randbits(32)


def run_file(test_file: ExceptionTestFile, env, clock=dict) -> list[dict]:
    """Run every case of `test_file` against `env`; its verdicts as data. `clock()`: seconds
    spent so far by where (the witness, the executor...); each verdict's "seconds" holds
    what its case added, and its wall time as "total" (make bench's profile)."""
    concepts = {c.test: c.concept for c in from_source(test_file.source)}
    test_file.test_case_results, verdicts = [], []
    for tc in test_file.test_cases:
        before, started = dict(clock()), time.perf_counter()
        passed, message, sentence = True, "✅ Test case passed", ""
        try:
            tc.body.call_func(env)
        except Exception as exc:  # what Otter catches; the traceback depth matches Otter's run
            passed, sentence = False, str(exc).strip("'")
            message = "❌ Test case failed\n" + checks.feedback(exc)
        test_file.test_case_results.append(TestCaseResult(test_case=tc, message=message, passed=passed))
        seconds = {k: round(v - before.get(k, 0.0), 3) for k, v in clock().items()}
        seconds["total"] = round(time.perf_counter() - started, 3)
        test = tc.body.test_func.__name__
        verdicts.append({"name": tc.name, "question": test_file.name, "test": test,
                         "concept": concepts.get(test, ""), "hidden": bool(tc.hidden),
                         "points": tc.points, "passed": passed, "message": sentence, "seconds": seconds})
    return verdicts
