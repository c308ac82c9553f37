"""Which cells of a notebook are the student's work, and what of them the grader runs. The
runner picks them and hands them to the witness as JSON (so the student's process needs no
nbformat: ~0.5 s of its start), with the modules the assignment's questions use there (its record's witness_imports), which the
witness imports and guards before the first cell; make bench's bare floor
(autograder.authoring.bare_run) runs the same cells."""
from __future__ import annotations

import json
import re
from pathlib import Path


# Lines of Otter's cells: the init cell (autograder.student.Notebook is Otter's with a safer
# export), grader.check, grader.export.
OTTER_LINES = ("import otter", "from autograder.student import Notebook", "grader.", "grader =")


# Otter's convention: a cell tagged so is not run when grading.
IGNORE_TAG = "otter_ignore"
# IPython magics that only measure or display: they would spend the notebook's time budget.
# A line of them is not run; where the magic runs a statement (`%time y = f(x)`) or a cell
# (`%%timeit`), that code runs once, without it, since an answer may sit there. Every other
# magic and shell command (`%%writefile`, `!clang++ ...`) runs as in Jupyter.
MEASURING = ("time", "timeit", "prun", "matplotlib")
_LINE_MAGIC = re.compile(r"^(\s*)%(" + "|".join(MEASURING) + r")\b(.*)$")
_CELL_MAGIC = re.compile(r"^\s*%%(" + "|".join(MEASURING) + r")\b")


def _graded_source(source: str) -> str:
    """`source` as the grader runs it: measuring magics taken out (see MEASURING)."""
    lines = source.splitlines()
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    if first is not None and _CELL_MAGIC.match(lines[first]):
        lines = lines[first + 1:]     # %%timeit -n 3 <body>: the body, once
    out = []
    for line in lines:
        m = _LINE_MAGIC.match(line)
        if m is None:
            out.append(line)
            continue
        statement = _statement(m.group(2), m.group(3))
        out.append(f"{m.group(1)}{statement}" if statement else f"{m.group(1)}pass")
    return "\n".join(out) + ("\n" if source.endswith("\n") else "")


def _statement(magic: str, rest: str) -> str:
    """The statement a measuring line magic runs and keeps ("" for none): %time and %prun
    run theirs in the notebook's namespace; %timeit runs its own in a scope of its own, and
    %matplotlib runs none."""
    if magic not in ("time", "prun"):
        return ""
    words, skip = rest.split(), 0
    while skip < len(words) and words[skip].startswith("-"):   # %prun -s cumulative f(x)
        skip += 2 if words[skip] in ("-s", "-T", "-D", "-l") else 1
    return rest.split(None, skip)[-1].strip() if skip < len(words) else ""


def gradable_cells(nb) -> list[tuple[int, str]]:
    """(index, source as the grader runs it) of the code cells to run. Otter's own cells
    (init, grader.check, grader.export: every line of them is Otter's) are not part of the
    work, nor cells tagged otter_ignore; a cell that also holds other code runs whole."""
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or IGNORE_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        lines = [l.strip() for l in cell.source.splitlines()]
        code = [l for l in lines if l and not l.startswith("#")]
        if code and not all(l.startswith(OTTER_LINES) for l in code):
            cells.append((index, _graded_source(cell.source)))
    return cells


def write(nb, path: Path, imports: tuple[str, ...] = (), exercise: str = "") -> Path:
    """The gradable cells of `nb`, the modules to import first, and the exercise whose
    questions the witness answers (its own observations are imported first too), as the
    witness reads them."""
    path.write_text(json.dumps({"exercise": exercise, "imports": list(imports), "cells": gradable_cells(nb)}))
    return path


def read(path: str) -> tuple[str, list[str], list[tuple[int, str]]]:
    data = json.loads(Path(path).read_text())
    return (str(data.get("exercise", "")), [str(m) for m in data["imports"]],
            [(int(i), str(source)) for i, source in data["cells"]])
