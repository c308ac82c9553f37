"""The integer index arrays a program computes from iota and constants, known element by
element: what `jnp.arange(n)[::-1]`, `jnp.take(x, idx)`'s negative-index wrap and bounds test,
and `x.at[idx].set(v)` lower to. The gathers and scatters of shared/gathers.py read them.

    Affine(shape, constant, coefficients)  element p is constant + sum of coefficients[d] * p[d]
    Uniform(shape, value)                   every element the same bool: a predicate decided
                                            for every element (an index never negative, never
                                            out of bounds)

Each StableHLO operation below is read by its semantics on these two forms; anything else is
None (not guessed): iota, splat constants, broadcast_in_dim, reshape, transpose, reverse,
slice, convert, copy, add, subtract, multiply by a constant, negate, compare, select, and,
or, not, clamp, and a reduce of `and` or `or`. Loop counters are shared/scalars.py's (an
index array that depends on one is not read here).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from autograder.shared import positions, scalars
from autograder.shared.scalars import shape_of
from autograder.shared.stablehlo import ints


@dataclass(frozen=True)
class Affine:
    shape: tuple
    constant: int
    coefficients: tuple

    def bounds(self) -> tuple[int, int]:
        """The least and greatest element (an empty array: (0, 0))."""
        if 0 in self.shape:
            return 0, 0
        spans = [c * (n - 1) for c, n in zip(self.coefficients, self.shape)]
        return self.constant + sum(min(0, s) for s in spans), self.constant + sum(max(0, s) for s in spans)


@dataclass(frozen=True)
class Uniform:
    shape: tuple
    value: bool


def as_affine(value, shape) -> Affine | None:
    """`value` (an origin's known integer: this module's, or shared/scalars.py's constant
    scalar, Iota or Vector) as an Affine of `shape`; None when it is not one."""
    if shape is None:
        return None
    if type(value) is Affine:
        return value if value.shape == tuple(shape) else None
    if type(value) is tuple and not value[1] and shape == ():
        return Affine((), value[0], ())
    if type(value) is scalars.Iota and tuple(shape) == (int(value),):
        return Affine((int(value),), 0, (1,))
    if type(value) is scalars.Vector and len(shape) == 1 and len(value) == shape[0] and value \
            and all(type(v) is tuple and not v[1] for v in value):
        first, step = value[0][0], (value[1][0] - value[0][0] if len(value) > 1 else 0)
        if all(v[0] == first + k * step for k, v in enumerate(value)):
            return Affine(tuple(shape), first, (step,))
    return None


def decided(value, shape):
    """A decided predicate as a bool (a Uniform of `shape`, a 0-d bool or 0/1 constant)."""
    if type(value) is Uniform and value.shape == tuple(shape):
        return value.value
    if type(value) is bool:
        return value
    found = as_affine(value, shape)
    return None if found is None or any(found.coefficients) else found.constant != 0


def _integer(op) -> tuple[str, int] | None:
    """The result's integer element type as (kind "i" or "u", bits), None when it is not one
    (i1 is a bool: `and`, `or` and `not` of wider integers are bitwise)."""
    found = re.fullmatch(r"tensor<[\dx]*([iu])(\d+)>", str(op.results[0].type))
    return None if found is None else (found.group(1), int(found.group(2)))


def leaf(op):
    """An iota or a splat constant of rank 1 or more (integer or bool), else None."""
    shape = shape_of(op.results[0]) if op.results else None
    if not shape or _integer(op) is None:
        return None
    if op.name == "stablehlo.iota":
        dim = ints(op, "iota_dimension")[0]
        return Affine(shape, 0, tuple(int(d == dim) for d in range(len(shape))))
    found = re.fullmatch(r"dense<(-?\d+|true|false)> : tensor<[\dx]+([iu]\d+)>", str(op.attributes.get("value")))
    if op.name != "stablehlo.constant" or found is None:
        return None
    text, kind = found.groups()
    if kind == "i1":
        return Uniform(shape, text == "true")
    return Affine(shape, int(text), (0,) * len(shape))


def of(op, values: list):
    """The Affine or Uniform result of `op` from its operands' known values, else None."""
    shape = shape_of(op.results[0]) if op.results else None
    if shape is None:
        return None
    name, ins = op.name.removeprefix("stablehlo."), [shape_of(v) for v in op.operands]
    if name == "select":
        pick = decided(values[0], ins[0])
        return None if pick is None else values[1 if pick else 2]
    if name in ("and", "or", "not", "reduce", "compare"):
        return _predicate(op, name, values, ins, shape)
    if values and type(values[0]) is Uniform and name in _LAYOUT:   # the same bool everywhere, moved
        return Uniform(shape, values[0].value)
    if name == "clamp":
        low, x, high = (as_affine(v, s) for v, s in zip(values, ins))
        if x is None or low is None or high is None or any(low.coefficients) or any(high.coefficients):
            return None
        return x if low.constant <= x.bounds()[0] and x.bounds()[1] <= high.constant else None
    if _integer(op) is None:
        return None
    found = _arithmetic(op, name, [as_affine(v, s) for v, s in zip(values, ins)], ins, shape)
    return _converted(op, found, shape) if type(found) is Affine else found


def _arithmetic(op, name, a: list, ins, shape):
    """An integer operation's exact result (before _converted checks that it fits its type)."""
    if name in ("convert", "copy", "optimization_barrier") and a and a[0] is not None:
        return Affine(shape, a[0].constant, a[0].coefficients)
    if name in ("add", "subtract") and len(a) == 2 and None not in a and a[0].shape == a[1].shape == shape:
        sign = 1 if name == "add" else -1
        return Affine(shape, a[0].constant + sign * a[1].constant,
                      tuple(x + sign * y for x, y in zip(a[0].coefficients, a[1].coefficients)))
    if name == "negate" and a and a[0] is not None:
        return Affine(shape, -a[0].constant, tuple(-c for c in a[0].coefficients))
    if name == "multiply" and len(a) == 2 and None not in a:
        k, x = (a[0], a[1]) if not any(a[0].coefficients) else (a[1], a[0])
        if any(k.coefficients):
            return None
        return Affine(shape, k.constant * x.constant, tuple(k.constant * c for c in x.coefficients))
    if a and a[0] is not None:
        return _moved(op, name, a[0], ins[0], shape)
    return None


def _converted(op, a: Affine, shape):
    """An integer result of `op`'s type: the same values where they all fit it (no wrap; a
    bool: nonzero is true), else None."""
    kind, bits = _integer(op)
    if bits == 1:
        return None if any(a.coefficients) else Uniform(shape, a.constant != 0)
    low, high = (0, 2**bits - 1) if kind == "u" else (-2**(bits - 1), 2**(bits - 1) - 1)
    return Affine(shape, a.constant, a.coefficients) if low <= a.bounds()[0] and a.bounds()[1] <= high else None


_LAYOUT = ("broadcast_in_dim", "reshape", "transpose", "reverse", "slice", "convert", "copy", "optimization_barrier")


def _moved(op, name, a: Affine, source, shape):
    """A layout operation's result from an Affine operand."""
    if name == "broadcast_in_dim":
        dims = ints(op, "broadcast_dimensions")
        coefficients = [0] * len(shape)
        for i, d in enumerate(dims):
            coefficients[d] = a.coefficients[i] if source[i] == shape[d] else 0
        return Affine(shape, a.constant, tuple(coefficients))
    if name == "transpose":
        perm = ints(op, "permutation")
        return Affine(shape, a.constant, tuple(a.coefficients[p] for p in perm))
    if name == "reverse":
        dims = ints(op, "dimensions")
        return Affine(shape, a.constant + sum(a.coefficients[d] * (source[d] - 1) for d in dims),
                      tuple(-c if d in dims else c for d, c in enumerate(a.coefficients)))
    if name == "slice":
        starts, steps = ints(op, "start_indices"), ints(op, "strides")
        return Affine(shape, a.constant + sum(c * s for c, s in zip(a.coefficients, starts)),
                      tuple(c * s for c, s in zip(a.coefficients, steps)))
    if name == "reshape":
        return _reshaped(a, source, shape)
    return None


def _reshaped(a: Affine, source, shape):
    """A reshape that adds or drops dimensions of size 1, or of a value affine in its flat
    (row-major) index; any other is None."""
    kept = [(n, c) for n, c in zip(source, a.coefficients) if n != 1]
    if [n for n, _ in kept] == [n for n in shape if n != 1]:
        it = iter(c for _, c in kept)
        return Affine(shape, a.constant, tuple(0 if n == 1 else next(it) for n in shape))
    step = kept[-1][1] if kept else 0   # the last dimension of more than one element has stride 1
    if all(n == 1 or c == step * s for n, c, s in zip(source, a.coefficients, positions.strides(source))):
        flat = positions.strides(shape)
        return Affine(shape, a.constant, tuple(0 if n == 1 else step * s for n, s in zip(shape, flat)))
    return None


def _predicate(op, name, values, ins, shape):
    """compare of two Affines (decided when their difference keeps one sign over the whole
    array), and/or/not of decided predicates, a reduce of `and` or `or` over one."""
    if name == "compare":
        a, b = (as_affine(v, s) for v, s in zip(values, ins))
        if a is None or b is None or a.shape != b.shape:
            return None
        lo, hi = Affine(a.shape, a.constant - b.constant,
                        tuple(x - y for x, y in zip(a.coefficients, b.coefficients))).bounds()
        found = scalars.truth(scalars.direction(op), lo, hi)
        return None if found is None else Uniform(shape, found)
    truths = [decided(v, s) for v, s in zip(values, ins)]
    if None in truths or _integer(op) != ("i", 1):
        return None
    if name == "not":
        return Uniform(shape, not truths[0])
    if name == "reduce":
        body = [o.name for o in op.regions[0].blocks[0].operations]
        if len(truths) != 2 or body[:1] not in (["stablehlo.and"], ["stablehlo.or"]):
            return None
        name = body[0].removeprefix("stablehlo.")
    return Uniform(shape, all(truths) if name == "and" else any(truths))
