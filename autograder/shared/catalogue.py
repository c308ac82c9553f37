"""The answer catalogues in solutions/<name>/: one file per answer, whose docstring says
what grading must give it.

    \"\"\"A batching rule that forgets to shift axis.

    score: 9
    messages:
      - axis must shift with the position of the batch dimension
    \"\"\"
    <the code a student would put in the answer cell>

`score` is the exact total the answer must get; every string under `messages` must
appear in its feedback. A full-score answer lists no messages, except a note the student
must be given (one at the top of the results). A line `# %%` starts a cell
of the student's own after the answer cell (a scratch cell), `# %% tags=["otter_ignore"]`
one with those tags (the percent format of Jupytext and VS Code).

solutions/adversarial/ holds attacks on the grader, in the same form plus:
`assignment` (whose notebook the attack is), `absent` (strings that must not appear
anywhere in the results), `markers` (files that must not exist after grading) and
`submit: zip_with_otter_log` (submitted as a grader.export() zip holding a crafted
.OTTER_LOG) and `base` (an answer of that assignment, e.g. `reference`, whose code the
attack's code follows in the answer cell: the attack must leave its score as it is);
see autograder/authoring/validate.py.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from autograder.shared import paths

ANSWER_CELL_TAG = "otter_answer_cell"


@dataclass(frozen=True)
class Answer:
    assignment: str
    name: str
    path: Path
    title: str
    score: float
    messages: tuple[str, ...] = field(default=())
    absent: tuple[str, ...] = field(default=())
    markers: tuple[str, ...] = field(default=())
    submit: str = "notebook"
    base: str = ""      # an answer of the same assignment whose code comes first (an attack's victim)

    @property
    def code(self) -> str:
        own = self.path.read_text()
        if not self.base:
            return own
        return (paths.solutions(self.assignment) / f"{self.base}.py").read_text() + "\n\n" + own


    @property
    def typed(self) -> str:
        """The code as a student types it: the docstring stating its score left out."""
        return without_docstring(self.code)


def without_docstring(code: str) -> str:
    """An answer file's code after its opening docstring (the catalogue's record of it)."""
    return code.split('"""', 2)[2].lstrip() if code.startswith('"""') else code


def parse(assignment: str, path: Path) -> Answer:
    opening = re.match(r'\s*(""".*?""")', path.read_text(), re.S)   # the rest may hold IPython magics
    doc = ast.get_docstring(ast.parse(opening.group(1))) if opening else None
    if not doc:
        raise ValueError(f"{path}: an answer file starts with a docstring stating its score")
    title, _, rest = doc.partition("\n\n")   # a paragraph of prose, then YAML
    meta = yaml.safe_load(rest) or {}
    if "score" not in meta:
        raise ValueError(f"{path}: the docstring has no 'score:'")
    messages = tuple(meta.get("messages") or ())
    if not all(isinstance(m, str) for m in messages):
        raise ValueError(f"{path}: every entry under 'messages' must be a string (quote one with ': ')")
    return Answer(meta.get("assignment", assignment), path.stem, path, " ".join(title.split()),
                  float(meta["score"]), messages, tuple(meta.get("absent") or ()),
                  tuple(meta.get("markers") or ()), meta.get("submit", "notebook"), meta.get("base", ""))


def answers(assignment: str) -> list[Answer]:
    """The catalogue of one assignment, or of the attacks (assignment "adversarial")."""
    return [parse(assignment, p) for p in sorted(paths.solutions(assignment).glob("*.py"))]


_CELL_MARK = re.compile(r"^# %%(?: tags=(\[.*\]))?[ \t]*$", re.M)


def split_cells(code: str) -> list[tuple[str, list[str]]]:
    """(source, tags) of each cell of an answer file's code: the answer cell, then the
    cells that `# %%` lines start."""
    marks = list(_CELL_MARK.finditer(code))
    cells = [(code[:marks[0].start()] if marks else code, [])]
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(code)
        cells.append((code[m.end():end].strip("\n") + "\n", json.loads(m.group(1) or "[]")))
    return cells


def submission(assignment: str, code: str | None) -> nbformat.NotebookNode:
    """The shipped student notebook with its answer cell replaced by `code` and the cells
    it adds after it (None: the notebook exactly as shipped)."""
    nb = nbformat.read(paths.student_notebook(assignment), as_version=4)
    at = [i for i, c in enumerate(nb.cells) if ANSWER_CELL_TAG in c.metadata.get("tags", [])]
    if len(at) != 1:
        raise ValueError(f"{assignment}: expected one answer cell, found {len(at)}")
    if code is not None:
        (answer, _), *added = split_cells(code)
        nb.cells[at[0]].source = answer
        for offset, (source, tags) in enumerate(added, start=1):
            cell = nbformat.v4.new_code_cell(source)
            if tags:
                cell.metadata["tags"] = tags
            nb.cells.insert(at[0] + offset, cell)
    return nb


def write_submission(assignment: str, code: str | None, path: Path) -> Path:
    """Write `submission(assignment, code)` to `path` and return the path."""
    nbformat.write(submission(assignment, code), path)
    return path


def solution_cell(assignment: str) -> str:
    """Source of the master notebook's solution cell (the reference answer)."""
    nb = json.loads(paths.master(assignment).read_text())
    cells, inside = [], False
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "raw" and src.strip() in ("# BEGIN SOLUTION", "# END SOLUTION"):
            inside = src.strip() == "# BEGIN SOLUTION"
        elif inside and cell["cell_type"] == "code":
            cells.append(src)
    if len(cells) != 1:
        raise ValueError(f"{assignment}: expected one solution cell in the master, found {len(cells)}")
    return cells[0]
