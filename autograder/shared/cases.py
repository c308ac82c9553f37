"""The test cases of an autograder zip, read with ast (never executed): name, visibility,
points and source, in Otter's order and naming. Used by `make assign` (the leak check)
and by report.html (pass rate per case)."""
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


def cases(zip_path: Path) -> list[Case]:
    out = []
    with zipfile.ZipFile(zip_path) as z:
        for name in sorted(n for n in z.namelist() if n.startswith("tests/") and n.endswith(".py")):
            tree = ast.parse(z.read(name).decode())
            question = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                            and getattr(n.targets[0], "id", "") == "name")
            i = 0
            for node in tree.body:
                for d in getattr(node, "decorator_list", []):
                    if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "test_case":
                        kw = {k.arg: ast.literal_eval(k.value) for k in d.keywords}
                        i += 1
                        out.append(Case(f"{question} - {i}", question, bool(kw.get("hidden")),
                                        float(kw.get("points") or 0), ast.unparse(node)))
    return out
