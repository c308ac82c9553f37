"""The course's `grader` in a student's notebook: Otter's Notebook, whose export refuses to
zip a notebook file that does not hold the code its kernel ran.

Otter's `grader.export()` zips the notebook file on disk; JupyterLab does not save it
first (Otter's force_save works only in the classic Notebook), so after an unsaved edit the
zip held the older file and the student lost points for work they had done. Here every
cell the kernel runs is recorded (IPython's pre_run_cell event: the cell's id when the
frontend sends one, as JupyterLab, Notebook 7 and VS Code do, and its source); export()
first reads the file and refuses, in one sentence saying what to do, when a cell run after
the file was last saved holds code the file does not (under the same cell id, or anywhere
in the file when the frontend sent no id). A failed case reads as its concept and
sentence, without Otter's "Error at line ..." (autograder.shared.checks.feedback).
Everything else is Otter's.
"""
from __future__ import annotations

import os
import time

import nbformat
import otter
from otter.test_files import ExceptionTestFile

from autograder.shared.checks import feedback
from autograder.student import in_process  # noqa: F401  (grader.check's questions answer themselves)

# grader.check's feedback on a failed case: its concept and sentence, as the grader's
# results show it, instead of Otter's "Error at line 20 in test ...:" and the quoted line.
ExceptionTestFile._generate_error_message = lambda self, excp, context=0: feedback(excp)

REFUSAL = ("Nothing was exported: the notebook file on disk is older than the code you ran "
           "(for example the cell that starts {start!r}). Save the notebook (Ctrl-S, or File > "
           "Save Notebook), then run this cell again.")


def _code(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


class Notebook(otter.Notebook):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._runs: dict[str, tuple[float, str, str | None]] = {}   # key -> (when, source, cell id)
        self._current: str | None = None
        try:
            shell = get_ipython()   # noqa: F821 (defined in an IPython kernel)
        except NameError:
            return                  # a plain Python process: nothing to compare with
        shell.events.register("pre_run_cell", self._record)

    def _record(self, info) -> None:
        cell_id = getattr(info, "cell_id", None)
        self._current = cell_id or info.raw_cell
        self._runs[self._current] = (time.time(), info.raw_cell, cell_id)

    def unsaved(self, nb_path: str) -> list[str]:
        """The code the kernel ran after `nb_path` was last saved that the file does not hold
        (the cell now running aside: it is the export)."""
        saved_at = os.path.getmtime(nb_path)
        nb = nbformat.read(nb_path, as_version=nbformat.NO_CONVERT)
        by_id = {cell.get("id"): _code(cell.source) for cell in nb.cells if cell.cell_type == "code"}
        held = set(by_id.values())
        return [source for key, (when, source, cell_id) in self._runs.items()
                if key != self._current and when > saved_at and _code(source)
                and (by_id[cell_id] != _code(source) if cell_id in by_id else _code(source) not in held)]

    def export(self, nb_path: str | None = None, *args, **kwargs):
        path = self._resolve_nb_path(nb_path)
        stale = self.unsaved(path)
        if stale:
            print(REFUSAL.format(start=_code(stale[0]).splitlines()[0][:60]))
            return None
        return super().export(nb_path, *args, **kwargs)
