"""Where the assignments and their generated files live; one place for the paths. The names
are the packages of autograder/assignments/ (read from the folders: shared/ imports nothing
above it; the records themselves are autograder.assignments.ALL)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = tuple(sorted(p.parent.name for p in (ROOT / "assignments").glob("*/__init__.py")))


def witness_module(name: str) -> str:
    """The module of exercise `name`'s own observations, run in the student's process
    (autograder/assignments/<name>/witness.py), or "" when it has none."""
    return f"autograder.assignments.{name}.witness" if (ROOT / "assignments" / name / "witness.py").is_file() else ""


def present() -> list[str]:
    """The assignments whose master notebook exists, in the canonical order."""
    return [n for n in NAMES if master(n).exists()]


def repo_root() -> Path:
    """The repository (mounted at /repo in the image, or this checkout)."""
    return Path.cwd() if (Path.cwd() / "assignments").is_dir() else ROOT


def master(name: str) -> Path:
    return repo_root() / "assignments" / name / f"{name}.ipynb"


def dist(name: str) -> Path:
    return repo_root() / "dist" / name


def student_notebook(name: str) -> Path:
    return dist(name) / "student" / f"{name}.ipynb"


def autograder_notebook(name: str) -> Path:
    return dist(name) / "autograder" / f"{name}.ipynb"


def autograder_zip(name: str) -> Path:
    return dist(name) / "autograder" / f"{name}-autograder.zip"


def solutions(name: str) -> Path:
    return repo_root() / "solutions" / name
