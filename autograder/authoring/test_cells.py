"""Check a master notebook's test cells before Otter Assign runs them: each compiles, and
every name it uses exists, so a typo fails `make assign` with the cell named instead of
showing up at grading time as a failed test.

Checked: the cell's Python syntax; every global name a test function reads (it must be
assigned in the cell, imported in it or a builtin); every attribute read from a module
the cell imports from this project (`checks.expect_closee`, `kit.kernel_outptu`). Not
checked: the expressions inside `ask.run("...")` strings, which the student's process
evaluates among the notebook's names.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import json
import re
import symtable
from pathlib import Path


def test_cells(notebook: Path) -> list[tuple[int, str]]:
    """(1-based cell number, source) of the code cells between BEGIN TESTS and END TESTS."""
    cells, inside = [], False
    for number, cell in enumerate(json.loads(notebook.read_text())["cells"], 1):
        source = "".join(cell["source"])
        marker = source.strip().splitlines()[0].strip() if source.strip() else ""
        if cell["cell_type"] == "raw" and marker in ("# BEGIN TESTS", "# END TESTS"):
            inside = marker == "# BEGIN TESTS"
        elif inside and cell["cell_type"] == "code":
            cells.append((number, source))
    return cells


def _unknown_globals(source: str) -> list[str]:
    """Names read as globals inside the cell's functions that the cell never binds."""
    top = symtable.symtable(source, "<cell>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    known = bound | set(vars(builtins))
    unknown: list[str] = []

    def walk(table):
        for child in table.get_children():
            for sym in child.get_symbols():
                if sym.is_referenced() and sym.is_global() and sym.get_name() not in known:
                    unknown.append(sym.get_name())
            walk(child)
    walk(top)
    return sorted(set(unknown))


def _missing_attributes(tree: ast.AST) -> list[str]:
    """`alias.attr` reads where alias is a module of this project imported in the cell and
    has no such attribute."""
    modules = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            for alias in node.names:
                try:
                    modules[alias.asname or alias.name] = importlib.import_module(f"{node.module}.{alias.name}")
                except ImportError:
                    pass   # a name, not a module: _unknown_globals and the import itself cover it
    return sorted({f"{n.value.id}.{n.attr}" for n in ast.walk(tree)
                   if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                   and n.value.id in modules and not hasattr(modules[n.value.id], n.attr)})


def _imports_resolve(tree: ast.AST) -> list[str]:
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            try:
                module = importlib.import_module(node.module)
            except ImportError:
                bad.append(node.module)
                continue
            bad += [f"{node.module}.{a.name}" for a in node.names if not hasattr(module, a.name)
                    and importlib.util.find_spec(f"{node.module}.{a.name}") is None]
    return bad


def problems(notebook: Path) -> list[str]:
    """One sentence per problem, naming the cell (its number in the notebook) and its test."""
    out = []
    for number, source in test_cells(notebook):
        name = next(iter(re.findall(r"def (test_\w+)", source)), "?")
        where = f"{notebook.name}, cell {number} ({name})"
        try:
            tree = ast.parse(source)
            compile(tree, where, "exec")
        except SyntaxError as exc:
            out.append(f"{where}: syntax error on line {exc.lineno}: {exc.msg}.")
            continue
        out += [f"{where}: unknown name {n!r}." for n in _unknown_globals(source)]
        out += [f"{where}: cannot import {m!r}." for m in _imports_resolve(tree)]
        out += [f"{where}: {a} does not exist." for a in _missing_attributes(tree)]
    return out
