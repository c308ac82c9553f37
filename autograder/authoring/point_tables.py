"""Each assignment's point table: the "How your answer is scored" cell of its master
notebook (what the student reads: the exercise's core requirement, then one row per test:
what it proves, what it presupposes, its points). The table lives in the notebook only;
docs/verdicts.md links to it.

tests/test_point_tables.py proves that every table lists exactly its notebook's tests, with
their points and visibility.
"""
from __future__ import annotations

import json
import re

from autograder.authoring.test_cells import test_cells
from autograder.shared import paths

HEADING = "## How your answer is scored"
_ROW = re.compile(r"^\| (\d+) \| `(test_\w+)` \| (yes|no \(hidden\)) \| .* \| ([\d.]+) \|$", re.M)


def cell(name: str) -> str:
    """The text of the notebook's scoring cell (its heading included)."""
    notebook = paths.master(name)
    for c in json.loads(notebook.read_text())["cells"]:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown" and text.startswith(HEADING):
            return text
    raise LookupError(f"{notebook} has no markdown cell starting {HEADING!r}")


def rows(text: str) -> list[tuple[str, bool, float]]:
    """(test, hidden, points) of each row of a scoring cell's table, in order."""
    return [(m.group(2), m.group(3) != "yes", float(m.group(4))) for m in _ROW.finditer(text)]


def tests(name: str) -> list[tuple[str, bool, float]]:
    """(test, hidden, points) of each test cell of the master notebook, in order."""
    found = []
    for _, source in test_cells(paths.master(name)):
        test = re.search(r"^def (test_\w+)\(", source, re.M)
        points = re.search(r"^points: ([\d.]+)$", source, re.M)
        hidden = re.search(r"^hidden: (true|false)$", source, re.M)
        found.append((test.group(1) if test else "", bool(hidden) and hidden.group(1) == "true",
                      float(points.group(1)) if points else 0.0))
    return found


def markdown(name: str) -> tuple[int, int]:
    """(words of markdown, markdown tables with one row per test) of the master notebook."""
    cells = [c for c in json.loads(paths.master(name).read_text())["cells"] if c["cell_type"] == "markdown"]
    texts = ["".join(c["source"]) for c in cells]
    tables = [len(t.splitlines()) - 2 for text in texts
              for t in re.findall(r"^\|.*\|\n\|[-| :]+\|\n(?:\|.*\|(?:\n|$))+", text, re.M)]
    return sum(len(t.split()) for t in texts), tables.count(len(tests(name)))


def concepts(name: str) -> list[str]:
    """The concept= of each test cell's `kit.case` call, in order."""
    return [m.group(1) for _, source in test_cells(paths.master(name))
            for m in [re.search(r'concept="([^"]+)"', source)] if m]
