"""Which cells of a notebook are the student's work. The runner picks them and hands them to
the witness as JSON (so the student's process needs no nbformat: ~0.5 s of its start), with
the modules the assignment's questions use there (its testkit's WITNESS_IMPORTS), which the
witness imports and guards before the first cell; make bench's bare floor
(autograder.authoring.bare_run) runs the same cells."""
from __future__ import annotations

import json
from pathlib import Path


# Lines of Otter's cells: the init cell (autograder.student.Notebook is Otter's with a safer
# export), grader.check, grader.export.
OTTER_LINES = ("import otter", "from autograder.student import Notebook", "grader.", "grader =")


def gradable_cells(nb) -> list[tuple[int, str]]:
    """(index, source) of the code cells to run. Otter's own cells (init, grader.check,
    grader.export: every line of them is Otter's) are not part of the work; a cell that
    also holds other code runs whole."""
    cells = []
    for index, cell in enumerate(nb.cells):
        lines = [l.strip() for l in cell.source.splitlines()] if cell.cell_type == "code" else []
        code = [l for l in lines if l and not l.startswith("#")]
        if code and not all(l.startswith(OTTER_LINES) for l in code):
            cells.append((index, cell.source))
    return cells


def write(nb, path: Path, imports: tuple[str, ...] = ()) -> Path:
    """The gradable cells of `nb`, and the modules to import first, as the witness reads them."""
    path.write_text(json.dumps({"imports": list(imports), "cells": gradable_cells(nb)}))
    return path


def read(path: str) -> tuple[list[str], list[tuple[int, str]]]:
    data = json.loads(Path(path).read_text())
    return [str(m) for m in data["imports"]], [(int(i), str(source)) for i, source in data["cells"]]


def _testkit(assignment: str):
    import importlib
    try:
        return importlib.import_module(f"autograder.shared.testkit.{assignment}")
    except ImportError:
        return None


def witness_imports(assignment: str) -> tuple[str, ...]:
    """The modules `assignment`'s questions use in the witness beyond JAX and NumPy."""
    return tuple(getattr(_testkit(assignment), "WITNESS_IMPORTS", ()))


def answer_policy(assignment: str):
    """The readable subset (autograder.shared.readable.Policy) that `assignment`'s notebooks
    must stay within, or None where the answer's structure is read from its compiled program
    instead (silu_ffi, ffi_lowering)."""
    return getattr(_testkit(assignment), "ANSWER_POLICY", None)


def answer_kernel_source(assignment: str) -> str | None:
    """The C++ file the task has the answer write beside the notebook (silu_ffi: silu.cc),
    which the grader compiles itself for the executor; None for the other assignments."""
    return getattr(_testkit(assignment), "ANSWER_KERNEL_SOURCE", None)
