"""Mutants of an answer: its source rewritten one change at a time (Python's ast,
ast.unparse), each change applied to every piece the assignment names (assignments/<name>.py:
the traced function, each rule, each host function), of five kinds (issue 49):

- values: an operator, a constant or a sign changed in a returned expression, or a text
  edit the piece names (a parameter passed wrong);
- thresholds: each values mutant only past a size, from a rank on or under a condition the
  piece names, at a ladder of sizes from small to the largest the task covers (a branch a
  value test at small sizes misses);
- positions: the result reversed, rolled by one, or its last axis reversed, past a size;
- provenance: the piece replaced by the same math in JAX or NumPy, everywhere or past a size;
- effects: a host function given one effect from a library (output, files, state,
  settings, threads), on every call, above 1000 elements or from rank 5 on.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

SIZES = (0, 64, 1000, 4096, 65536, 1 << 20)   # "past a size": from small to the largest checked
RANKS = (3, 4, 5)
_OPS = {ast.Mult: ast.Add, ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Div: ast.Mult, ast.Pow: ast.Mult}


@dataclass(frozen=True)
class Piece:
    """A function of the answer a mutant changes: `library` is how its code computes
    (np: a host function, jnp: traced code); `same_math`, the expression in its arguments
    that computes what the piece computes, for provenance mutants (a rule that returns a
    tuple: the whole tuple). `element`: which element of a returned tuple is the piece's
    value (a JVP rule's tangent, a batching rule's result), the one values and positions
    change. `size` and `rank`: expressions in `arg` (its first argument) a threshold
    measures; `ranks`: the ranks a threshold starts from (none where the task's domain is
    1-d: a branch on the rank is outside it); `conditions`: further thresholds, (label, condition) (an axis combination, a
    batch dimension, a parameter value). `edits`: values mutants by text, (label, old, new)
    in the function's source (a parameter passed wrong, an accumulation changed)."""
    name: str
    library: str
    same_math: str = ""
    host: bool = False
    element: int | None = None
    size: str = "np.size({arg})"
    rank: str = "np.ndim({arg})"
    ranks: tuple[int, ...] = RANKS
    conditions: tuple[tuple[str, str], ...] = ()
    edits: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Mutant:
    name: str     # kind/piece/change, unique within an assignment
    kind: str     # values, thresholds, positions, provenance, effects
    code: str     # the whole answer, mutated
    change: str   # what changed, in words


# The effects library: one statement each, run by a host function before it returns.
EFFECTS = {
    "appends to a global list": "_MUTANT_CALLS.append(1)",
    "prints": "print('called')",
    "sets NumPy's error state": "np.seterr(all='ignore')",
    "changes the umask": "__import__('os').umask(0o022)",
    "writes a file": "open('mutant.log', 'a').write('x')",
    "sets an environment variable": "__import__('os').environ.__setitem__('MUTANT', '1')",
    "draws from Python's random": "__import__('random').random()",
    "changes the warning filters": "__import__('warnings').simplefilter('ignore')",
    "starts a thread that outlives the call": (
        "__import__('threading').Thread(target=__import__('time').sleep, args=(5,), daemon=True).start()"),
    "counts its calls on itself": "{name}.calls = getattr({name}, 'calls', 0) + 1",
}


def ladder(size_of: str, rank_of: str, ranks: tuple[int, ...] = RANKS) -> list[tuple[str, str, str]]:
    """(label, condition, words) of each threshold past a size of SIZES and from a rank of
    `ranks`, for the expressions of a piece's size and rank (the condition reads as Python and
    as C++ alike)."""
    return ([(f"size>{n}", f"{size_of} > {n}", f"above {n:,} elements") for n in SIZES[1:]]
            + [(f"rank>={r}", f"{rank_of} >= {r}", f"from rank {r} on") for r in ranks])


def mutants(code: str, pieces: list[Piece]) -> list[Mutant]:
    """Every mutant of `code` (an answer's source) over `pieces`."""
    tree = ast.parse(code)
    found: list[Mutant] = []
    for piece in pieces:
        fn = _function(tree, piece.name)
        if fn is None:
            continue
        arg = fn.args.args[0].arg if fn.args.args else "x"
        size_of, rank_of = piece.size.format(arg=arg), piece.rank.format(arg=arg)
        thresholds = ladder(size_of, rank_of, piece.ranks) + [(c, condition, f"when {c}") for c, condition in piece.conditions]
        for label, changed in _numbered([*_values(fn, piece.element), *_edits(fn, piece.edits)]):
            found.append(_make(tree, piece, "values", f"values/{piece.name}/{label}", changed,
                               f"{piece.name}: {label}"))
            for t_label, condition, words in thresholds:
                found.append(_make(tree, piece, "thresholds", f"thresholds/{piece.name}/{label}/{t_label}",
                                   _guard(fn, changed, condition), f"{piece.name}: {label}, {words}"))
        lib = piece.library
        moves = {"reversed": f"{lib}.reshape({lib}.ravel(_r)[::-1], {lib}.shape(_r))",
                 "rolled by one": f"{lib}.reshape({lib}.roll({lib}.ravel(_r), 1), {lib}.shape(_r))",
                 "last axis reversed": f"({lib}.flip(_r, -1) if {lib}.ndim(_r) else _r)"}
        for label, move in moves.items():
            for size in SIZES:
                moved = _wrap_returns(fn, move, piece.element)
                guarded = moved if size == 0 else _guard(fn, moved, f"{size_of} > {size}")
                found.append(_make(tree, piece, "positions", f"positions/{piece.name}/{label}/size>{size}",
                                   guarded, f"{piece.name}: result {label}" + (f" above {size:,} elements" if size else "")))
        if piece.same_math:
            body = ast.parse(f"return {piece.same_math}").body[0]
            for size in SIZES:
                replaced = copy.deepcopy(fn)
                replaced.body = [body] if size == 0 else [ast.parse(
                    f"if {size_of} > {size}:\n    return {piece.same_math}").body[0], *fn.body]
                found.append(_make(tree, piece, "provenance", f"provenance/{piece.name}/size>{size}", replaced,
                                   f"{piece.name} replaced by {piece.same_math}"
                                   + (f" above {size:,} elements" if size else "")))
        if piece.host:
            for label, statement in EFFECTS.items():
                line = statement.format(name=piece.name)
                when = [("size>0", "", ""), ("size>1000", f"{size_of} > 1000", " above 1,000 elements"),
                        *[(f"rank>={r}", f"{rank_of} >= {r}", f" from rank {r} on") for r in piece.ranks[-1:]]]
                for w_label, condition, words in when:
                    src = f"if {condition}:\n    {line}" if condition else line
                    effected = copy.deepcopy(fn)
                    effected.body = [*ast.parse(src).body, *fn.body]
                    found.append(_make(tree, piece, "effects", f"effects/{piece.name}/{label}/{w_label}", effected,
                                       f"{piece.name} {label}{words}",
                                       preamble="_MUTANT_CALLS = []\n" if "_MUTANT_CALLS" in line else ""))
    return found


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _numbered(changes: list) -> list:
    """The same label twice (two products in one return) numbered from the second on."""
    seen: dict[str, int] = {}
    out = []
    for label, changed in changes:
        seen[label] = seen.get(label, 0) + 1
        out.append((label if seen[label] == 1 else f"{label} #{seen[label]}", changed))
    return out


def _returned(ret: ast.Return, element: int | None) -> ast.expr:
    """The returned expression a mutant changes: the whole value, or one element of a tuple."""
    if element is None or not isinstance(ret.value, ast.Tuple):
        return ret.value
    return ret.value.elts[element]


def _values(fn: ast.FunctionDef, element: int | None):
    """(label, fn changed) for each operator, constant and sign of its returned expressions."""
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    for r_index, ret in enumerate(returns):
        if element is not None and not isinstance(ret.value, ast.Tuple):
            continue   # a rule's early return of a symbolic zero
        nodes = list(ast.walk(_returned(ret, element)))
        for n_index, node in enumerate(nodes):
            if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
                new = _OPS[type(node.op)]
                yield (f"{type(node.op).__name__.lower()}->{new.__name__.lower()}",
                       _edit(fn, element, r_index, n_index, lambda n, new=new: setattr(n, "op", new())))
            if isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value not in (0, 1):
                for label, value in ((f"{node.value}->{node.value + 1}", node.value + 1),
                                     (f"{node.value}->{-node.value}", -node.value)):
                    yield label, _edit(fn, element, r_index, n_index, lambda n, value=value: setattr(n, "value", value))
        yield (f"sign of return {r_index}" if len(returns) > 1 else "sign"), _edit(
            fn, element, r_index, None, lambda r: _set_returned(r, element, ast.UnaryOp(ast.USub(), _returned(r, element))))


def _set_returned(ret: ast.Return, element: int | None, value: ast.expr) -> None:
    if element is None or not isinstance(ret.value, ast.Tuple):
        ret.value = value
    else:
        ret.value.elts[element] = value


def _edit(fn: ast.FunctionDef, element: int | None, r_index: int, n_index: int | None, change) -> ast.FunctionDef:
    fn = copy.deepcopy(fn)
    ret = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None][r_index]
    change(ret if n_index is None else list(ast.walk(_returned(ret, element)))[n_index])
    return fn


def _edits(fn: ast.FunctionDef, edits: tuple[tuple[str, str, str], ...]):
    """(label, fn changed) for each text edit of the function's source (one occurrence)."""
    source = ast.unparse(fn)
    for label, old, new in edits:
        if old not in source:
            raise ValueError(f"{fn.name}: the edit {label!r} finds no {old!r}")
        yield label, ast.parse(source.replace(old, new, 1)).body[0]


def _wrap_returns(fn: ast.FunctionDef, move: str, element: int | None = None) -> ast.FunctionDef:
    """Each return value `v` (or its `element`) becomes `(lambda _r: move)(v)`."""
    fn = copy.deepcopy(fn)
    for ret in [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]:
        if element is not None and not isinstance(ret.value, ast.Tuple):
            continue
        _set_returned(ret, element, ast.Call(ast.parse(f"lambda _r: {move}", mode="eval").body,
                                             [_returned(ret, element)], []))
    return fn


def _guard(fn: ast.FunctionDef, changed: ast.FunctionDef, condition: str) -> ast.FunctionDef:
    """`changed`'s body when `condition` holds, else `fn`'s."""
    guarded = copy.deepcopy(fn)
    test = ast.parse(condition, mode="eval").body
    guarded.body = [ast.If(test, copy.deepcopy(changed.body), copy.deepcopy(fn.body))]
    return guarded


def _make(tree: ast.Module, piece: Piece, kind: str, name: str, fn: ast.FunctionDef, change: str,
          preamble: str = "") -> Mutant:
    module = copy.deepcopy(tree)
    module.body = [fn if isinstance(n, ast.FunctionDef) and n.name == piece.name else n for n in module.body]
    return Mutant(name, kind, preamble + ast.unparse(ast.fix_missing_locations(module)) + "\n", change)
