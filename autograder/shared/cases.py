"""The test cases of an autograder zip, read with ast (never executed): name, visibility,
points, concept and source, in Otter's order and naming. Used by `make assign` (the leak
check), by the runner (the concept of each verdict it records) and by report.html."""
from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    name: str          # Otter's "<question> - <n>"
    question: str
    hidden: bool
    points: float
    source: str        # the test function, unparsed
    test: str = ""     # the test function's name
    concept: str = ""  # what it checks: the concept= of its `case` call


def _concept(function: ast.AST) -> str:
    """The literal concept= of the `kit.case(...)` call in a test
    function ("" if none)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "case":
            for k in node.keywords:
                if k.arg == "concept" and isinstance(k.value, ast.Constant):
                    return str(k.value.value)
    return ""


def from_source(source: str) -> list[Case]:
    """The cases of one Otter test file's source."""
    tree = ast.parse(source)
    question = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and getattr(n.targets[0], "id", "") == "name")
    out, i = [], 0
    for node in tree.body:
        for d in getattr(node, "decorator_list", []):
            if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "test_case":
                kw = {k.arg: ast.literal_eval(k.value) for k in d.keywords}
                i += 1
                out.append(Case(f"{question} - {i}", question, bool(kw.get("hidden")),
                                float(kw.get("points") or 0), ast.unparse(node), node.name, _concept(node)))
    return out


def cases(zip_path: Path) -> list[Case]:
    with zipfile.ZipFile(zip_path) as z:
        return [case for name in sorted(n for n in z.namelist() if n.startswith("tests/") and n.endswith(".py"))
                for case in from_source(z.read(name).decode())]
