"""What of a submitted notebook is the student's own code, as the similarity report
compares it: every code cell that is not one of the shipped student notebook's cells (the
answer cell and any cell the student added), without the lines that notebook gives,
Python and C++ apart.

IPython's magics become the calls IPython makes of them (IPython's own TransformerManager),
so `%timeit` and `%%writefile cpp/silu.cc` cells are Python too. C++ held in a Python string
(`SILU_CC = r\"\"\"...\"\"\"`, a `%%writefile` cell's body, `Path(...).write_text("...")`) is
compared as C++: as Python it would be one string token (copydetect replaces each by S).
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat

# A string holding C++ rather than text: what every FFI source of the course has.
CPP = re.compile(r"#\s*include\b|\bXLA_FFI_|\bffi::|\bextern\s+\"C\"")


@dataclass(frozen=True)
class Code:
    python: str     # the cells, one after another, each opened by a `# In[n]` comment
    cpp: str        # the C++ those cells hold in strings, in their order


def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager()


CPP_PLACEHOLDER = '"""C++ (compared as C++)"""'


def replace_tokens(source: str, tokens: list[tokenize.TokenInfo], edits: dict[int, str]) -> str:
    """`source` with the tokens of the indices in `edits` replaced by their text."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for i in sorted(edits, reverse=True):
        t = tokens[i]
        a, b = starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1]
        source = source[:a] + edits[i] + source[b:]
    return source


def _without_cpp(python: str) -> str:
    """`python` with each string that holds C++ shown as one short string (as Python it is
    one token whatever it holds; its C++ is compared as C++)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(python).readline))
    except (tokenize.TokenError, SyntaxError):
        return python
    edits = {i: CPP_PLACEHOLDER for i, t in enumerate(tokens) if t.type == tokenize.STRING and CPP.search(t.string)}
    return replace_tokens(python, tokens, edits)


def _cpp_strings(python: str) -> list[str]:
    """The string constants of `python` that hold C++ (none when it does not parse)."""
    try:
        tree = ast.parse(python)
    except (SyntaxError, ValueError):
        return []
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and CPP.search(n.value)]


@dataclass(frozen=True)
class Given:
    """What the shipped student notebook gives: its code cells, and their lines (Python and
    the C++ in its strings), which are left out of every student's code."""
    cells: frozenset[str]
    lines: frozenset[str]
    code: Code

    @classmethod
    def of(cls, student_notebook: Path) -> "Given":
        sources = _code_cells(nbformat.read(student_notebook, as_version=4))
        code = of_cells([(f"given {i}", s) for i, s in enumerate(sources, 1)])
        lines = {line.strip() for text in (code.python, code.cpp) for line in text.splitlines()}
        return cls(frozenset(s.strip() for s in sources), frozenset(lines - {""}), code)


def _own_lines(text: str, given: Given) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if line.strip() not in given.lines)


def of_cells(sources: list[tuple[str, str]], given: Given | None = None) -> Code:
    """The Code of (label, source) cells, the lines `given` gives left out. (A k-gram that
    runs from a student's line into a given one would otherwise count the given one.)"""
    transform = _transformer()
    python, cpp = [], []
    for label, source in sources:
        try:
            text = transform.transform_cell(source)
        except Exception:   # IPython's transformer rejects some broken input: keep it as written
            text = source
        own_python, own_cpp = _without_cpp(text), [s.strip() + "\n" for s in _cpp_strings(text)]
        if given:
            own_python, own_cpp = _own_lines(own_python, given), [_own_lines(c, given) for c in own_cpp]
        python.append(f"# {label}\n{own_python.rstrip()}\n")
        cpp += [f"// {label}\n{c}" for c in own_cpp if c.strip()]
    return Code("\n".join(python), "\n".join(cpp))


def _code_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def of_notebook(path: Path, given: Given) -> Code:
    """The student's own code in the notebook `path`: its code cells that are not, as they
    stand, one of the shipped notebook's cells, without the lines the notebook gives."""
    nb = nbformat.read(path, as_version=4)
    return of_cells([(f"In[{i}]", c.source) for i, c in enumerate(nb.cells, 1)
                     if c.cell_type == "code" and c.source.strip() not in given.cells], given)


def of_file(path: Path, given: Given) -> Code:
    """A reference answer kept as a catalogue file (solutions/<name>/*.py): its cells are
    the answer cell and those its `# %%` lines start; its docstring (the catalogue's
    record of the answer) is not code a student sees."""
    from autograder.shared import catalogue
    cells = catalogue.split_cells(catalogue.without_docstring(path.read_text()))
    return of_cells([(f"{path.name} cell {i}", source) for i, (source, _) in enumerate(cells, 1)], given)
