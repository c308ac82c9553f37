"""Each assignment's point table: the "How your answer is scored" cell of its master
notebook (what the student reads: the exercise's core requirement, then one row per test:
what it proves, what it presupposes, its points), and the copy of that cell in the README's
per-assignment section, between `<!-- point table: NAME -->` and `<!-- end point table -->`.

    python -m autograder.authoring.point_tables    # rewrite the README's copies (make tables)

tests/test_point_tables.py proves that every table lists exactly its notebook's tests, with
their points and visibility, and that the README's copies are the notebooks' cells.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from autograder.authoring.test_cells import test_cells
from autograder.shared import paths

HEADING = "## How your answer is scored"
README = paths.repo_root() / "README.md"
_COPY = re.compile(r"(<!-- point table: (\w+) -->\n)(.*?)(<!-- end point table -->)", re.S)
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


def readme_copy(name: str) -> str:
    """What the README holds between the markers for `name`: the cell without its heading."""
    return cell(name).removeprefix(HEADING).strip() + "\n"


def copies(readme: str) -> dict[str, str]:
    """{assignment: the README's copy of its scoring cell}."""
    return {m.group(2): m.group(3) for m in _COPY.finditer(readme)}


def synced(readme: str) -> str:
    """The README with every copy replaced by its notebook's cell."""
    return _COPY.sub(lambda m: m.group(1) + readme_copy(m.group(2)) + m.group(4), readme)


if __name__ == "__main__":
    README.write_text(synced(README.read_text()))
    print(f"{README}: point tables of {', '.join(sorted(copies(README.read_text())))}", file=sys.stderr)
