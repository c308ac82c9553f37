"""The submissions of one assignment, found in a folder and checked before grading.

A submission is a notebook (.ipynb) or a zip made by `grader.export()`. Only the zip's
one top-level notebook is taken out (by name, never following paths or links), so a
crafted zip cannot write outside the work folder and its other files (.OTTER_LOG, ...)
never reach the grader. Each problem becomes a reason in the grades, never an exception.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import nbformat

@dataclass
class Submission:
    file: str                   # the submitted file's name: the CSV's "file" column
    notebook: Path | None       # the notebook to grade, once extracted and checked
    problem: str | None = None  # why it cannot be graded


def _notebook_from_zip(path: Path, dest: Path, max_bytes: int) -> tuple[Path | None, str | None]:
    try:
        with zipfile.ZipFile(path) as z:
            names = [i for i in z.infolist() if not i.is_dir()]
            notebooks = [i for i in names if PurePosixPath(i.filename).suffix == ".ipynb"
                         and len(PurePosixPath(i.filename).parts) == 1
                         and (i.external_attr >> 16) & 0o170000 != 0o120000]  # not a symlink
            if len(notebooks) != 1:
                return None, f"the zip holds {len(notebooks)} top-level notebooks, expected 1"
            if notebooks[0].file_size > max_bytes:
                return None, f"the notebook in the zip is larger than {_mb(max_bytes)}"
            out = dest / PurePosixPath(notebooks[0].filename).name
            out.write_bytes(z.read(notebooks[0]))
            return out, None
    except (zipfile.BadZipFile, OSError) as exc:
        return None, f"not a readable zip file ({exc})"


def _mb(size: int) -> str:
    return f"{size / 2**20:g} MB"


def check(path: Path, assignment: str, work: Path, max_bytes: int) -> Submission:
    """Extract (for a zip) and check one submission; never raises for bad input."""
    dest = work / path.stem
    dest.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".zip":
        notebook, problem = _notebook_from_zip(path, dest, max_bytes)
        if problem:
            return Submission(path.name, None, problem)
    elif path.suffix == ".ipynb":
        if path.stat().st_size > max_bytes:
            return Submission(path.name, None, f"the notebook is larger than {_mb(max_bytes)}")
        notebook = dest / path.name
        notebook.write_bytes(path.read_bytes())
    else:
        return Submission(path.name, None, "not a notebook (.ipynb) or a zip from grader.export()")
    try:
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises many types for corrupt JSON
        return Submission(path.name, None, f"not a valid Jupyter notebook ({type(exc).__name__})")
    name = nb.metadata.get("otter", {}).get("assignment_name")
    if name and name != assignment:
        return Submission(path.name, None, f"a notebook of the assignment {name!r}, not {assignment!r}")
    return Submission(path.name, notebook)


def collect(folder: Path, assignment: str, work: Path, max_bytes: int) -> list[Submission]:
    """Every file directly in `folder` (hidden files aside), sorted by name; files that are
    not notebooks get a row with the reason too."""
    paths = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    return [check(p, assignment, work, max_bytes) for p in paths]
