"""The one-way imports between the folders of autograder/ (docs/architecture.md's table).

Every import of this project's modules is read with ast, module-level and inside
functions alike, so a lazy import cannot cross the line unseen either."""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Where each folder's code may import from (its own folder always).
ALLOWED = {
    "shared": {"shared"},
    "witness": {"shared", "kernels"},
    "runner": {"shared", "assignments"},   # the exercises' records
    "assignments": {"shared", "exercise records"},
    "executor": {"shared", "kernels"},
    "authoring": {"shared", "runner", "witness", "kernels", "student"},   # bare_run answers in process
    "host": {"shared"},
    # the student's own kernel: under grader.check it answers its questions and runs the
    # programs itself (student/in_process.py)
    "student": {"shared", "witness", "executor"},
    "kernels": {"shared"},
    "exercise witness": {"shared", "witness", "kernels", "exercise records"},   # autograder/assignments/<name>/witness.py
    "exercise records": {"shared"},   # autograder/assignments/<name>/records.py: its own evidence records
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _folder(module: str) -> str:
    """The folder a module belongs to; an exercise's witness.py runs on the witness's side
    (the student's process), not with the rest of its package, and its records.py (evidence
    records) on both sides."""
    parts = module.split(".")
    if parts[:2] == ["autograder", "assignments"] and parts[-1] in ("witness", "records") and len(parts) > 3:
        return f"exercise {parts[-1]}"
    return parts[0] if parts[0] == "kernels" else parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.update(f"{node.module}.{a.name}" for a in node.names)
            out.add(node.module)
    return {m for m in out if m.split(".")[0] in ("autograder", "kernels")}


def _graph() -> dict[str, set[str]]:
    files = [*ROOT.glob("autograder/**/*.py"), *ROOT.glob("kernels/*.py")]
    modules = {_module(p): p for p in files}
    graph = {}
    for name, path in modules.items():
        # "from autograder.shared import checks" names the module autograder.shared.checks
        graph[name] = {m for m in _imports(path) if m in modules} - {name}
    return graph


GRAPH = _graph()


def test_every_folder_is_known():
    assert {_folder(m) for m in GRAPH} - {""} == set(ALLOWED)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_point_one_way(module):
    here = _folder(module)
    bad = [m for m in GRAPH[module] if _folder(m) not in ALLOWED.get(here, set()) | {here, ""}]
    assert not bad, f"{module} ({here}/) imports {bad}, outside {sorted(ALLOWED.get(here, ()))}"


@pytest.mark.parametrize("start", ["runner", "host", "executor"])
def test_trusted_code_never_reaches_the_witness(start):
    """Transitively: whatever runner/, host/ or executor/ imports never loads witness/ code."""
    seen, todo = set(), [m for m in GRAPH if _folder(m) == start]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += GRAPH[m]
    assert not [m for m in seen if _folder(m) in ("witness", "exercise witness")]


def test_the_runner_process_loads_no_witness_module():
    """The same, observed: importing the runner's entry point loads nothing of witness/."""
    code = ("import sys, autograder.runner.__main__; "
            "print(sorted(m for m in sys.modules if m.startswith('autograder.witness') or m.endswith('.witness')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("folder", sorted(set(ALLOWED) - {"kernels", "exercise witness", "exercise records"}))
def test_the_architecture_table_names_every_module(folder):
    """docs/architecture.md's table of folders lists exactly the modules in the tree."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    row = next(l for l in page.splitlines() if l.startswith(f"| `autograder/{folder}/`"))
    named = set(re.findall(r"`(\w+\.py|\w+/)`", row))
    actual = {p.name for p in (ROOT / "autograder" / folder).glob("*.py") if p.name != "__init__.py"}
    actual |= {f"{p.name}/" for p in (ROOT / "autograder" / folder).iterdir() if (p / "__init__.py").exists()}
    assert named == actual


MAX_LINES = 400


def test_no_python_file_is_longer_than_the_limit():
    """A file that holds two jobs shows first as a long file: each stays under MAX_LINES."""
    long = {str(p.relative_to(ROOT)): n for p in [*ROOT.glob("autograder/**/*.py"), *ROOT.glob("kernels/*.py"),
                                                   *ROOT.glob("tests/**/*.py")]
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def _string_key_reads(path: Path) -> list[tuple[int, str]]:
    """The lines of `path` that read a value by a string key (x["key"], x.get("key"))."""
    source = path.read_text()
    reads = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get" and node.args):
            key = node.args[0]
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            reads.append((node.lineno, source.splitlines()[node.lineno - 1]))
    return reads


def test_the_exercises_read_evidence_by_attribute():
    """Evidence is typed (autograder/shared/evidence.py): the exercises read it by attribute.
    A string-key read left in autograder/assignments/ reads something that is no evidence
    (a JAX table, an equation's params) and says so in a comment on its line; at most 20."""
    reads = [(str(p.relative_to(ROOT)), n, line) for p in ROOT.glob("autograder/assignments/**/*.py")
             for n, line in _string_key_reads(p)]
    assert len(reads) <= 20, reads
    assert [r for r in reads if "#" not in r[2]] == []


def test_the_autograder_zip_ships_every_file_the_package_installs():
    """assign.PROJECT_FILES (what an autograder zip carries to Gradescope's bare container)
    matches every kernels/ file pyproject's package-data installs (loaded_audit.c was once left
    behind: the zip's setup.sh could not build the audit module)."""
    import fnmatch
    import tomllib

    from autograder.authoring import assign
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["kernels"]
    shipped = [f for f in (ROOT / "kernels").iterdir() if any(fnmatch.fnmatch(f.name, p) for p in data)]
    assert shipped
    for f in shipped:
        rel = f"kernels/{f.name}"
        assert any(fnmatch.fnmatch(rel, p) for p in assign.PROJECT_FILES), rel
