"""The integers a program computes where it slices: a dynamic slice's start, a gather's index
vector, a while loop's counter, known exactly when the graph decides them.

An integer 0-d value is (constant, ((loop, coefficient), ...)): a constant plus multiples of
the counters of enclosing while loops (`counter` finds a loop's counter: jax.lax.fori_loop,
scan and map run one from a constant up to a constant bound). A predicate is a bool when
every value the counters take decides it; a small integer vector a Vector of them. Anything
else is None: what cannot be decided is not guessed (shared/dataflow.py then leaves the
positions of what it slices unfollowed).
"""
from __future__ import annotations

import re

from jax.extend.mlir import ir


def shape_of(value):
    """A ranked tensor value's shape as a tuple, None for anything else (tuples, tokens)."""
    try:
        return tuple(ir.RankedTensorType(value.type).shape)
    except (TypeError, ValueError):
        return None


def constant(op):
    """An integer 0-d constant's value as a scalar (n, ()), else None."""
    if op.name != "stablehlo.constant" or shape_of(op.results[0]) != ():
        return None
    found = re.fullmatch(r"dense<(-?\d+|true|false)> : tensor<[iu]\d+>", str(op.attributes["value"]))
    if found is None:
        return None
    text = found.group(1)
    return (int(text == "true"), ()) if text in ("true", "false") else (int(text), ())


def affine(constant, terms):
    merged = {}
    for loop, c in terms:
        merged[loop] = merged.get(loop, 0) + c
    return constant, tuple(sorted((k, c) for k, c in merged.items() if c))


def bounds(value, trips: dict) -> tuple[int, int]:
    """The least and greatest an integer scalar (constant, terms) takes as the loops' counters
    run (`trips`: loop -> how many values its counter takes)."""
    first, terms = value
    return (first + sum(min(0, c * (trips.get(k, 1) - 1)) for k, c in terms),
            first + sum(max(0, c * (trips.get(k, 1) - 1)) for k, c in terms))


def decide(direction, a, b, trips):
    """The truth of `a <direction> b` for every value the loops' counters take, else None."""
    return truth(direction, *bounds(affine(a[0] - b[0], a[1] + tuple((k, -c) for k, c in b[1])), trips))


def truth(direction: str, lo: int, hi: int):
    """The truth of `d <direction> 0` for every d from lo to hi, else None."""
    tests = {"LT": (hi < 0, lo >= 0), "LE": (hi <= 0, lo > 0), "GT": (lo > 0, hi <= 0), "GE": (lo >= 0, hi < 0),
             "EQ": (lo == hi == 0, lo > 0 or hi < 0), "NE": (lo > 0 or hi < 0, lo == hi == 0)}
    yes, no = tests.get(direction, (False, False))
    return True if yes else False if no else None


def direction(compare) -> str:
    """A stablehlo.compare's direction: "#stablehlo<comparison_direction LT>" -> "LT"."""
    return str(compare.attributes["comparison_direction"]).split()[-1].rstrip(">")


def counter(op, inits):
    """(k, first, bound) when carried value k is a counter the loop runs while it is below a
    constant bound (jax.lax.fori_loop, scan, map: `cond { compare LT, %iterArg_k, %c }`)."""
    cond = op.regions[0].blocks[0]
    operations = list(cond.operations)
    last = operations[-1].operands[0] if operations[-1].operands else None
    compare = next((o for o in operations if o.results and o.results[0] == last), None)
    if compare is None or compare.name != "stablehlo.compare" or direction(compare) != "LT":
        return None
    arguments = list(cond.arguments)
    left, right = compare.operands
    if left not in arguments:
        return None
    k = arguments.index(left)
    bound = next((constant(o) for o in operations if o.results and o.results[0] == right), None)
    first = inits[k][3]
    if not isinstance(bound, tuple) or not isinstance(first, tuple) or first[1] or bound[0] <= first[0]:
        return None
    return k, first[0], bound[0]


def of(op, values: list, trips: dict):
    """An elementwise operation's integer scalar result as (constant, terms), or a predicate's
    truth, when its operands' (`values`) decide it (`trips`: loop -> how many values its
    counter takes)."""
    name = op.name
    if name == "stablehlo.convert":
        return values[0]
    if name in ("stablehlo.add", "stablehlo.subtract") and all(type(v) is tuple for v in values):
        sign = 1 if name.endswith("add") else -1
        return affine(values[0][0] + sign * values[1][0], values[0][1] + tuple((k, sign * c) for k, c in values[1][1]))
    if name == "stablehlo.multiply" and all(type(v) is tuple for v in values):
        (a, ta), (b, tb) = values
        if not ta or not tb:
            k, (c, t) = (a, (b, tb)) if not ta else (b, (a, ta))
            return affine(k * c, tuple((loop, k * x) for loop, x in t))
    if name == "stablehlo.compare" and all(type(v) is tuple for v in values):
        return decide(direction(op), values[0], values[1], trips)
    if name == "stablehlo.select" and isinstance(values[0], bool):
        return values[1] if values[0] else values[2]
    return None


ONES = "ones"   # a float value all of whose elements are 1 (jnp.ones): what a dot with it sums


def ones(op):
    """ONES for a float constant splat of 1.0, else None."""
    if op.name != "stablehlo.constant":
        return None
    found = re.fullmatch(r"dense<1\.0*e\+0+> : tensor<(\d+x)*(f|bf)\d+>", str(op.attributes["value"]))
    return ONES if found else None


class Iota(int):
    """A 1-d integer iota of this many elements (jnp.arange(n)): element k is k."""


def iota(op):
    """The Iota of a 1-d integer stablehlo.iota (what jnp.arange lowers to), else None."""
    shape = shape_of(op.results[0])
    if op.name != "stablehlo.iota" or shape is None or len(shape) != 1 \
            or not re.fullmatch(r"tensor<\d+x[iu]\d+>", str(op.results[0].type)):
        return None
    return Iota(shape[0])


def element(start, size: int, trips: dict):
    """The one element of an Iota of `size` elements at a dynamic slice's `start` (clamped as
    XLA clamps it: known only when it stays inside at every counter value)."""
    if type(start) is not tuple:
        return None
    lo, hi = bounds(start, trips)
    return start if 0 <= lo and hi < size else None


class Vector(tuple):
    """A small integer vector (an index vector of a gather) known element by element: each an
    integer scalar's (constant, terms)."""


def vector(op, operands, trips: dict):
    """The Vector of a layout operation's result built from known integer scalars (a
    broadcast, a reshape, a concatenate of them, one element sliced from an Iota), or a 0-d
    one reshaped from a vector; an Iota passed through a copy."""
    shape, name = shape_of(op.results[0]) if op.results else None, op.name
    values = [o[3] for o in operands]
    if values and values[0] == ONES:   # moved or copied, still all ones
        return ONES if name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast", "stablehlo.reshape",
                                "stablehlo.transpose", "stablehlo.copy", "stablehlo.slice") else None
    if values and type(values[0]) is Iota:
        if name == "stablehlo.dynamic_slice" and shape == (1,) and len(values) == 2:
            found = element(values[1], values[0], trips)
            return None if found is None else Vector((found,))
        return values[0] if name in ("stablehlo.copy", "stablehlo.optimization_barrier") else None
    if shape is None or len(shape) > 1 or (shape and shape[0] > 8) or not values or values[0] is None:
        return None
    if name in ("stablehlo.broadcast_in_dim", "stablehlo.reshape") and type(values[0]) is tuple:
        return Vector((values[0],) * shape[0]) if shape else values[0]
    if name == "stablehlo.reshape" and type(values[0]) is Vector:
        return values[0] if shape else values[0][0] if len(values[0]) == 1 else None
    if name == "stablehlo.concatenate" and all(type(v) is Vector for v in values):
        return Vector(x for v in values for x in v)
    return None
