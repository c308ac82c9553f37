"""What make validate demands of every sentence a student reads (issue 39), whatever the
answer: no raw error text (errors.RAW), a counterexample (got, expected) wherever values
differ, and the chapter section to read after every failed case."""
from __future__ import annotations

import re

from autograder.shared import errors

FAILED = "❌ Test case failed"
# a value failure of checks.expect_close and the assignments' own comparisons
_VALUES = re.compile(r"differs from the reference|NaN or infinite values where the reference")


def problems(feedback: str) -> list[str]:
    """Why `feedback` (everything the student read of one grading) is not readable."""
    found = [f"raw error text {r!r} in the feedback" for r in errors.RAW if r in feedback]
    found += [f"an XLA error number {m!r} in the feedback" for m in re.findall(r"\bE\d{4}: [A-Za-z]+", feedback)]
    lines = feedback.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() != FAILED:
            continue
        sentence = lines[i + 1].strip()
        if _VALUES.search(sentence) and ", got " not in sentence:
            found.append(f"no counterexample (got, expected) in {sentence[:160]!r}")
        if not re.search(r"Read section 5\.\d+ of the chapter \(.*\)\.$", sentence):
            found.append(f"no chapter section after {sentence[:160]!r}")
    return sorted(set(found))
