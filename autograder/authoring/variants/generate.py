"""Variants of an answer: its source rewritten in ways that keep it correct (issue 55), each a
whole answer that must keep full marks. A variant is the answer with the forms of prelude.py
put at the top of its cell and one or more of:

- a form decorating a piece (the innermost decorator of one of its functions: inside a
  `jax.custom_jvp` or `jax.custom_vjp`, so the transformation rules still apply);
- a text edit of the answer (an argument passed another valid way, an identity written out);
- code appended (a rule registered anew in JAX's tables).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PRELUDE = (Path(__file__).with_name("prelude.py")).read_text()


@dataclass(frozen=True)
class Variant:
    name: str     # kind/piece/form, unique within an assignment
    kind: str     # layout, loop, host, edit, rule
    code: str     # the whole answer, rewritten
    change: str   # what changed, in words


def decorated(code: str, function: str, decorator: str) -> str:
    """`code` with `@decorator` as the innermost decorator of the module-level def `function`."""
    tree = ast.parse(code)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function), None)
    if fn is None:
        raise ValueError(f"no function {function!r} to decorate")
    fn.decorator_list.append(ast.parse(decorator, mode="eval").body)
    return ast.unparse(tree) + "\n"


def edited(code: str, *edits: tuple[str, str]) -> str:
    """`code` with each (old, new) replaced everywhere; an edit that finds nothing is an error."""
    for old, new in edits:
        if old not in code:
            raise ValueError(f"the edit finds no {old!r}")
        code = code.replace(old, new)
    return code


def make(kind: str, name: str, code: str, change: str) -> Variant:
    return Variant(f"{kind}/{name}", kind, PRELUDE + "\n\n" + code, change)


def traced(code: str, piece: str, forms: list[str], kind: str) -> list[Variant]:
    """One variant per form of prelude.py's _V_LAYOUTS or _V_LOOPS around the traced `piece`."""
    return [make(kind, f"{piece}/{form}", decorated(code, piece, f"_v_traced({form!r})"),
                 f"{piece} computed {form.replace('_', ' ')}") for form in forms]


def host(code: str, piece: str, forms: list[str]) -> list[Variant]:
    """One variant per form of prelude.py's _V_HOSTS around the host function `piece`."""
    return [make("host", f"{piece}/{form}", decorated(code, piece, f"_v_host({form!r})"),
                 f"the host function {piece} {form.replace('_', ' ')}") for form in forms]


def batch_loops(code: str, primitive: str, loops: list[str]) -> list[Variant]:
    """One variant per loop of _V_ROW_LOOPS as the batching rule of `primitive` (registered
    after the answer's own)."""
    return [make("rule", f"batching/{loop}",
                 code + f"\n\nbatching.primitive_batchers[{primitive}] = _v_batch({primitive}, {loop!r})\n",
                 f"the batching rule binds one example at a time in a {loop.replace('_', ' ')}") for loop in loops]
