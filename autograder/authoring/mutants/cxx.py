"""Mutants inside C++: an answer's kernel source (a Python string of the answer) changed one
statement at a time, by text, since the C++ is a string to Python's ast. Each CxxPiece names
a statement (its left-hand side) of a kernel loop, and the expressions the thresholds read
(the element count, the rank, the row width of the buffer the loop reads). The kinds are
generate.py's: values (an operator, a constant, a sign, `=` made `+=`), thresholds (each of
those past a size, from a rank on, past a row width: a branch in C++), positions (the
element written one place over past a size: reversed, rolled, its row reversed).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from autograder.authoring.mutants.generate import SIZES, Mutant, ladder

WIDTHS = (8, 512, 4096)   # "past a row width": the last dimension of the buffer
_BINARY = re.compile(r"(?<=\s)([-+*/])(?=\s)")
_FLOAT = re.compile(r"(?<![\w.])(\d+\.\d*f?)")
_SWAP = {"*": "+", "+": "-", "-": "+", "/": "*"}


@dataclass(frozen=True)
class CxxPiece:
    """`lhs`: the statement's left-hand side as written (`yp[i]`, `float s`); `index`: the
    loop index in it (positions move it; "" when the statement writes no element);
    `count`, `rank`, `width`: C++ expressions of the element count, the rank and the last
    dimension of the buffer the loop reads. `changes`: the labels of the values changes
    kept (each with its thresholds), all of them when empty."""
    name: str
    lhs: str
    index: str = "i"
    count: str = "n"
    rank: str = "x.dimensions().size()"
    width: str = "(x.dimensions().size() ? x.dimensions().back() : 1)"
    changes: tuple[str, ...] = ()


def mutants(code: str, pieces: list[CxxPiece]) -> list[Mutant]:
    found: list[Mutant] = []
    for piece in pieces:
        match = re.search(re.escape(piece.lhs) + r"\s*=\s*([^;]+);", code)
        if match is None:
            raise ValueError(f"no statement `{piece.lhs} = ...;` in the answer")
        rhs = match.group(1)

        def statement(lhs: str, value: str, op: str = "=") -> str:
            return code[:match.start()] + f"{lhs} {op} {value};" + code[match.end():]
        changes = [(label, new, "=") for label, new in _values(rhs)]
        if piece.index:
            changes.append(("= made +=", rhs, "+="))
        if piece.changes:
            unknown = set(piece.changes) - {label for label, _, _ in changes}
            if unknown:
                raise ValueError(f"{piece.name}: no values change {sorted(unknown)}")
            changes = [c for c in changes if c[0] in piece.changes]
        thresholds = ladder(piece.count, piece.rank)
        thresholds += [(f"width>{w}", f"{piece.width} > {w}", f"rows wider than {w}") for w in WIDTHS]
        for label, new, op in changes:
            where = f"{piece.name}: {label}"
            found.append(Mutant(f"values/{piece.name}/{label}", "values", statement(piece.lhs, new, op), where))
            for t_label, condition, words in thresholds:
                if op == "+=":   # the branch adds or assigns
                    guarded = f"(({condition}) ? {piece.lhs} + ({rhs}) : ({rhs}))"
                    code_t = statement(piece.lhs, guarded)
                else:
                    code_t = statement(piece.lhs, f"(({condition}) ? ({new}) : ({rhs}))")
                found.append(Mutant(f"thresholds/{piece.name}/{label}/{t_label}", "thresholds", code_t,
                                    f"{where}, {words}"))
        if not piece.index:
            continue
        i, n, w = piece.index, piece.count, piece.width
        moves = {"reversed": f"{n} - 1 - {i}", "rolled by one": f"({i} + 1) % {n}",
                 "row reversed": f"{i} - {i} % {w} + ({w} - 1 - {i} % {w})"}
        for label, moved in moves.items():
            for s in SIZES:
                index = moved if s == 0 else f"(({n} > {s}) ? {moved} : {i})"
                lhs = piece.lhs.replace(f"[{i}]", f"[{index}]")
                found.append(Mutant(f"positions/{piece.name}/{label}/size>{s}", "positions",
                                    statement(lhs, rhs), f"{piece.name}: element written {label}"
                                    + (f" above {s:,} elements" if s else "")))
    return found


def _values(rhs: str):
    """(label, rhs changed): each binary operator swapped, each float constant changed, the sign."""
    for k, m in enumerate(_BINARY.finditer(rhs)):
        yield f"{m.group(1)}->{_SWAP[m.group(1)]} #{k}", rhs[:m.start()] + _SWAP[m.group(1)] + rhs[m.end():]
    for k, m in enumerate(_FLOAT.finditer(rhs)):
        yield f"{m.group(1)}->2.0f #{k}", rhs[:m.start()] + "2.0f" + rhs[m.end():]
    yield "sign", f"-({rhs})"
