"""Where each value of a StableHLO program comes from, decided on its graph alone.

A program lowered at abstract shapes (jax.ShapeDtypeStruct: 2^31 - 1 elements cost what 8
do) is never run; its graph already says, for every result of `main` and every operand of
every custom_call, which sources its values come from and which operations computed them:

    sources  "input:<i>"   main's argument i
             "call:<i>"    custom_call number i (program order, as stablehlo.custom_calls)
             "constant"    a constant or an iota
             "loop-init"   a constant a while loop starts a carried value with (the buffer a
                           sequential vmap or a scan writes its slices into)
    math     the operations between a source and the value that are not layout operations
             (add, multiply, exponential, select, a convert that changes the type, ...)

Layout operations move or copy elements without computing: reshape, transpose, broadcast,
slice, concatenate, dynamic (update) slice, gather, pad (its padding value a source),
reverse, copy, tuples, a convert to the same type, sharding annotations. Positions (the
start indices of a dynamic slice, a gather's indices, a loop's counter) carry no values and
are not followed. func.call is followed into its callee (per call site), stablehlo.while by
a fixpoint over its carried values, stablehlo.case and if by the union of their branches.
Every custom_call's operands are read, those of a call whose results reach no output too.
Each block is read in one pass in program order, so the work is linear in the program and
no recursion follows a chain of operations; what nests (calls, loops, branches) nests at
most MAX_DEPTH deep.

The executor runs this on texts the witness handed over (autograder/executor/program.py,
op "structure"); the verdicts read the evidence.Structure it returns.
"""
from __future__ import annotations

import re
from collections import ChainMap

import numpy as np
from jax._src.interpreters import mlir as jax_mlir   # make_ir_context: JAX's dialects registered
from jax.extend.mlir import ir

from autograder.shared import positions, stablehlo
from autograder.shared.evidence import LOOP_INIT, Call, Origin, Structure

# Each layout op's operands that carry values (None: all of them).
_LAYOUT = {
    "stablehlo.reshape": None, "stablehlo.transpose": None, "stablehlo.broadcast_in_dim": None,
    "stablehlo.broadcast": None, "stablehlo.slice": None, "stablehlo.concatenate": None,
    "stablehlo.copy": None, "stablehlo.reverse": None, "stablehlo.tuple": None,
    "stablehlo.get_tuple_element": None, "stablehlo.optimization_barrier": None,
    "stablehlo.dynamic_slice": (0,), "stablehlo.dynamic_update_slice": (0, 1),
    "stablehlo.gather": (0,), "stablehlo.pad": (0, 1), "stablehlo.dynamic_reshape": (0,),
    "stablehlo.dynamic_broadcast_in_dim": (0,), "stablehlo.real_dynamic_slice": (0,),
}
_LEAVES = ("stablehlo.constant", "stablehlo.iota")
_PASS_THROUGH_TARGETS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "LayoutConstraint")
# Operations whose result element at each position is computed from the operands' elements at
# that position alone (a 0-d operand broadcast): positions pass through them unchanged.
_ELEMENTWISE = frozenset(f"stablehlo.{n}" for n in (
    "abs add and atan2 cbrt ceil clamp compare complex convert cosine count_leading_zeros divide "
    "exponential exponential_minus_one floor imag is_finite log log_plus_one logistic maximum minimum "
    "multiply negate not or popcnt power real remainder round_nearest_afz round_nearest_even rsqrt "
    "select shift_left shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh "
    "xor bitcast_convert reduce_precision").split())
# The course's kernels that sum their operand over the axes an attribute names (reduce_sum_rules'
# lowering of custom_reduce_sum_p, kernels/reduce_sum.py): positions pass through them as
# through stablehlo.reduce.
REDUCTIONS = {"__grader_reduce_sum__": "axis"}
_FIXPOINT_ROUNDS = 16   # a carried value's origin can only grow; the lattice is small

# A value's origin: (sources, math, places, scalar). places: frozenset of (root, piece)
# (shared/positions.py), root "input:<i>"; scalar: an integer 0-d value's (constant, ((loop,
# coefficient), ...)) when known (a dynamic slice's start at a loop's counter), a predicate's
# bool, else None.
_NONE = (frozenset(), frozenset(), frozenset(), None)


def _union(*origins):
    return (frozenset().union(*(o[0] for o in origins)), frozenset().union(*(o[1] for o in origins)),
            frozenset().union(*(o[2] for o in origins)), None)


def _element_type(value) -> str:
    return str(value.type).rsplit("x", 1)[-1].removesuffix(">")


def _shape(value):
    try:
        return tuple(ir.RankedTensorType(value.type).shape)
    except (TypeError, ValueError):
        return None


def _ints(op, name) -> list[int]:
    text = str(op.attributes[name])
    text = text.partition(":")[2] if text.startswith("array<") else text.split(" : ")[0]
    return [int(x) for x in re.findall(r"-?\d+", text)]


class TooLarge(ValueError):
    """The program is beyond what the grader reads (its sentence says which bound)."""


MAX_DEPTH = 64   # regions nested in regions and calls in calls (jit in jit, a loop in a loop)
MAX_TEXT_BYTES = 16 << 20   # one program's text (the witness hands over no larger; the executor reads no larger)
MAX_SOURCES = 200_000   # sources named by all the outputs' and operands' origins together (the reply's size)


def _map_places(places, shape, step):
    """Each (root, piece) of `places` through `step` (piece -> pieces); past MAX_PIECES, one
    piece per root that cannot be followed."""
    out = set()
    for root, piece in places:
        for p in step(piece):
            out.add((root, p))
    return _capped(out, shape)


def _capped(places, shape):
    if len(places) <= positions.MAX_PIECES or shape is None:
        return frozenset(places)
    return frozenset((root, positions.unknown(shape, "more pieces than the grader follows"))
                     for root in {r for r, _ in places})


def _unfollowed(places, shape, why):
    """Every root of `places`, its positions not followed past the operation `why`."""
    if shape is None:
        return frozenset()
    return frozenset((root, positions.unknown(shape, why)) for root in {r for r, _ in places})


class _Graph:
    """One forward pass per block, operations in order (SSA: each value is defined before
    it is used), so no recursion follows a chain of operations however long; regions and
    calls nest at most MAX_DEPTH deep. `deadline()` raises TooLarge when the reading's time
    is up (checked once per operation)."""

    def __init__(self, module: ir.Module, deadline=lambda: None):
        self.funcs = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.funcs[op.attributes["sym_name"].value] = op.operation
        if "main" not in self.funcs:
            raise ValueError("the program has no main function")
        self.calls = []
        for op in stablehlo.walk(module.operation):
            deadline()
            if op.name == "stablehlo.custom_call":
                self.calls.append(op)
        self.call_index = {op: i for i, op in enumerate(self.calls)}
        self.operands: dict[int, list] = {}   # custom_call index -> its operands' origins (union over sites)
        self._callees: dict = {}
        self.deadline = deadline
        self.named = 0   # sources named by the custom_calls' operands so far (each reading counted)
        self.trips: dict[int, int] = {}   # loop id -> how many times its body runs (counter 0 .. n - 1)

    # ---------------------------------------------------------------- values

    def results(self, op, env, depth: int) -> list:
        """The origins of `op`'s results, its operands' read from `env`."""
        name = op.name
        count = len(op.results)
        if name in _LEAVES:
            return [(frozenset({"constant"}), frozenset(), frozenset(), _constant(op))] * count
        operands = [env.get(o, _NONE) for o in op.operands]
        if name == "stablehlo.custom_call":
            return self.custom_call(op, operands)
        if name == "func.call":
            return self.function(op.attributes["callee"].value, tuple(operands), depth + 1)
        if name == "stablehlo.while":
            return self.loop(op, operands, env, depth + 1)
        if name in ("stablehlo.case", "stablehlo.if"):
            branches = [self.region(r, [], env, depth + 1) for r in op.regions]
            return [_union(*(b[k] for b in branches)) for k in range(count)]
        if name == "stablehlo.optimization_barrier":
            return [(o[0], o[1], o[2], None) for o in operands]
        if name == "stablehlo.convert" and _element_type(op.operands[0]) == _element_type(op.results[0]):
            return [operands[0]] * count
        if name in _LAYOUT:
            picked = _LAYOUT[name]
            chosen = operands if picked is None else [operands[i] for i in picked if i < len(operands)]
            moved = _union(_NONE, *chosen)
            return [(moved[0], moved[1], self.layout(op, operands), _vector(op, operands))] * count
        inner = _union(_NONE, *operands)
        shape = _shape(op.results[0]) if count else None
        if name in _ELEMENTWISE:
            places = frozenset().union(*(self._broadcast(o[2], op.operands[i], shape)
                                         for i, o in enumerate(operands)))
            scalar = self.scalar(op, operands)
        elif name == "stablehlo.reduce":
            places = self.reduce(op, operands)
            scalar = None
        else:
            places, scalar = _unfollowed(inner[2], shape, name), None
        return [(inner[0], inner[1] | {name.removeprefix("stablehlo.")}, places, scalar)] * count

    def custom_call(self, op, operands):
        target = op.attributes["call_target_name"].value
        index = self.call_index[op]
        seen = self.operands.get(index)
        self.operands[index] = operands if seen is None else [_union(a, b) for a, b in zip(seen, operands)]
        self.named += sum(len(o[0]) for o in self.operands[index])
        if self.named > MAX_SOURCES:
            raise TooLarge(f"its custom_calls take their values from more than {MAX_SOURCES} sources in all")
        if target in _PASS_THROUGH_TARGETS and operands:
            return [operands[0]] * len(op.results)
        out = []
        for result in op.results:
            shape, places = _shape(result), set()
            if target in REDUCTIONS and operands:
                places = self._summed(op, operands[0][2], REDUCTIONS[target], shape)
            for value, origin in zip(op.operands, operands) if target not in REDUCTIONS else ():
                places |= _through_call(origin[2], _shape(value), shape, target)
            out.append((frozenset({f"call:{index}"}), frozenset(), _capped(places, shape), None))
        return out

    def _summed(self, op, places, attribute, shape):
        """The places of a course kernel's sum (REDUCTIONS) over the axes of its `attribute`."""
        operand = _shape(op.operands[0])
        found = stablehlo.custom_call(op).attributes.get(attribute)
        axes = [int(a) for a in np.ravel(found.value)] if found is not None else None
        if operand is None or shape is None or axes is None or any(not 0 <= a < len(operand) for a in axes):
            return _unfollowed(places, shape, op.attributes["call_target_name"].value)
        kept = tuple(n for d, n in enumerate(operand) if d not in axes)
        return _map_places(places, shape, lambda p: [q for r in positions.reduce(p, operand, axes)
                                                     for q in positions.reshape(r, kept, shape)])

    def _broadcast(self, places, value, shape):
        """An elementwise operand's places at the result's shape (a 0-d operand broadcast)."""
        own = _shape(value)
        if own == shape or shape is None:
            return places
        if own == ():
            return _map_places(places, shape, lambda p: positions.broadcast_in_dim(p, (), shape, []))
        return _unfollowed(places, shape, "an elementwise operation on another shape")

    # ------------------------------------------------------------ positions

    def layout(self, op, operands):
        """The places of a layout operation's result."""
        name, shape = op.name, _shape(op.results[0]) if op.results else None
        ins = [_shape(v) for v in op.operands]
        first = operands[0][2] if operands else frozenset()
        if shape is None or any(s is None for s in ins[:1]):
            return _unfollowed(frozenset().union(*(o[2] for o in operands)), shape, name)
        if name in ("stablehlo.copy", "stablehlo.convert"):
            return first
        if name == "stablehlo.reshape":
            return _map_places(first, shape, lambda p: positions.reshape(p, ins[0], shape))
        if name == "stablehlo.transpose":
            perm = _ints(op, "permutation")
            return _map_places(first, shape, lambda p: positions.transpose(p, perm))
        if name == "stablehlo.broadcast_in_dim":
            dims = _ints(op, "broadcast_dimensions")
            return _map_places(first, shape, lambda p: positions.broadcast_in_dim(p, ins[0], shape, dims))
        if name == "stablehlo.reverse":
            dims = _ints(op, "dimensions")
            return _map_places(first, shape, lambda p: positions.reverse(p, ins[0], dims))
        if name == "stablehlo.slice":
            a, b, c = _ints(op, "start_indices"), _ints(op, "limit_indices"), _ints(op, "strides")
            return _map_places(first, shape, lambda p: positions.slice_(p, a, b, c))
        if name == "stablehlo.concatenate":
            dim, at, places = _ints(op, "dimension")[0], 0, set()
            for value, origin in zip(op.operands, operands):
                places |= _map_places(origin[2], shape, lambda p, at=at: positions.shift(p, dim, at))
                at += _shape(value)[dim]
            return _capped(places, shape)
        if name == "stablehlo.pad" and not any(_ints(op, "interior_padding")):
            low, high = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
            starts = [max(0, -x) for x in low]
            limits = [n - max(0, -x) for n, x in zip(ins[0], high)]

            def pad(p):
                return [q for s in positions.slice_(p, starts, limits, [1] * len(shape))
                        for q in positions.shift_all(s, [max(0, x) for x in low])]
            return _map_places(first, shape, pad) | _unfollowed(operands[1][2], shape, "a padding value")
        if name == "stablehlo.dynamic_slice":
            return self.dynamic_slice(op, operands, ins[0], shape)
        if name == "stablehlo.gather":
            return self.gather(op, operands, ins[0], shape)
        if name == "stablehlo.dynamic_update_slice":
            return self.dynamic_update_slice(op, operands, ins, shape)
        return _unfollowed(frozenset().union(*(o[2] for o in operands)), shape, name)

    def reduce(self, op, operands):
        shape = _shape(op.results[0])
        half = len(operands) // 2
        if shape is None or len(op.results) != half:
            return _unfollowed(frozenset().union(*(o[2] for o in operands)), shape, op.name)
        dims = _ints(op, "dimensions")
        places = set()
        for value, origin in zip(op.operands[:half], operands[:half]):
            places |= _map_places(origin[2], shape, lambda p, s=_shape(value): positions.reduce(p, s, dims))
        return _capped(places | _unfollowed(frozenset().union(*(o[2] for o in operands[half:])), shape,
                                            "a reduction's initial value"), shape)

    def dynamic_slice(self, op, operands, source, shape, sizes=None):
        starts = [o[3] for o in operands[1:]]
        sizes = _ints(op, "slice_sizes") if sizes is None else sizes
        if any(type(s) is not tuple for s in starts):
            return _unfollowed(operands[0][2], shape, op.name)
        if all(not s[1] for s in starts):   # constant starts, clamped as XLA clamps them
            a = [min(max(s[0], 0), n - k) for s, n, k in zip(starts, source, sizes)]
            return _map_places(operands[0][2], shape,
                               lambda p: positions.slice_(p, a, [x + k for x, k in zip(a, sizes)], [1] * len(a)))
        return _map_places(operands[0][2], shape, lambda p: positions.dynamic_slice(
            p, source, [s[0] for s in starts], [s[1] for s in starts], sizes, self.trips))

    def gather(self, op, operands, source, shape):
        """A gather of one slice (its indices one index vector: what jnp.take of one index
        lowers to) read as the dynamic slice it is; any other gather is not followed."""
        numbers = str(op.attributes["dimension_numbers"])
        field = {k: [int(x) for x in re.findall(r"-?\d+", v)] for k, v in
                 re.findall(r"(\w+) = (\[[^\]]*\]|-?\d+)", numbers)}
        sizes = _ints(op, "slice_sizes")
        index = operands[1][3]
        mapped = field.get("start_index_map", [])
        if type(index) is not _Vector or len(index) != len(mapped) or field.get("operand_batching_dims") \
                or _shape(op.operands[1]) != (len(mapped),) or field.get("index_vector_dim", [0]) != [0] \
                or field.get("offset_dims", []) != list(range(len(shape))):
            return _unfollowed(operands[0][2], shape, op.name)
        starts = [(0, ())] * len(source)
        for d, value in zip(mapped, index):
            starts[d] = value
        if any(type(v) is not tuple for v in starts):
            return _unfollowed(operands[0][2], shape, op.name)
        sliced = self.dynamic_slice(op, [operands[0], *((None, None, None, v) for v in starts)], source,
                                    tuple(sizes), sizes=sizes)
        return _map_places(sliced, shape, lambda p: positions.reshape(p, tuple(sizes), shape))

    def dynamic_update_slice(self, op, operands, ins, shape):
        buffer, update = operands[0][2], operands[1][2]
        starts = [o[3] for o in operands[2:]]
        everything = buffer | update
        if any(type(s) is not tuple for s in starts):
            return _unfollowed(everything, shape, op.name)
        sizes = ins[1]
        swept = [(d, s[1]) for d, s in enumerate(starts) if s[1]]
        if not swept:
            a = [min(max(s[0], 0), n - k) for s, n, k in zip(starts, shape, sizes)]
            cut = tuple((x, x + k) for x, k in zip(a, sizes))
            return _capped(set(_map_places(buffer, shape, lambda p: positions.subtract(p, cut)))
                           | _map_places(update, shape, lambda p: positions.shift_all(p, a)), shape)
        if len(swept) != 1 or len(swept[0][1]) != 1:
            return _unfollowed(everything, shape, op.name)
        d, ((loop, coefficient),) = swept[0]
        n, first = self.trips.get(loop, 0), starts[d][0]
        low = first if coefficient > 0 else first + (n - 1) * coefficient   # a reversed scan counts down
        if abs(coefficient) != sizes[d] or low < 0 or low + n * sizes[d] > shape[d] or n == 0:
            return _unfollowed(everything, shape, op.name)
        a = [s[0] for s in starts]
        a[d] = low
        cut = tuple((x, x + k) if j != d else (low, low + n * k) for j, (x, k) in enumerate(zip(a, sizes)))
        kept = _map_places(buffer, shape, lambda p: positions.subtract(p, cut))
        return _capped(set(kept) | _map_places(update, shape, lambda p: positions.sweep(p, d, loop, n, a, sizes, coefficient < 0)), shape)

    def scalar(self, op, operands):
        """An integer scalar's affine value, or a predicate's truth, when the graph decides it."""
        values = [o[3] for o in operands]
        name = op.name
        if name == "stablehlo.convert":
            return values[0]
        if name in ("stablehlo.add", "stablehlo.subtract") and all(type(v) is tuple for v in values):
            sign = 1 if name.endswith("add") else -1
            return _affine(values[0][0] + sign * values[1][0], values[0][1] + tuple((k, sign * c) for k, c in values[1][1]))
        if name == "stablehlo.multiply" and all(type(v) is tuple for v in values):
            (a, ta), (b, tb) = values
            if not ta or not tb:
                k, (c, t) = (a, (b, tb)) if not ta else (b, (a, ta))
                return _affine(k * c, tuple((loop, k * x) for loop, x in t))
        if name == "stablehlo.compare" and all(type(v) is tuple for v in values):
            return _decide(str(op.attributes["comparison_direction"]).split()[-1].rstrip(">"),
                           values[0], values[1], self.trips)
        if name == "stablehlo.select" and isinstance(values[0], bool):
            return values[1] if values[0] else values[2]
        return None

    # -------------------------------------------------------- regions, calls

    def region(self, region, args: list, outer, depth: int) -> list:
        """The origins of the values a one-block region returns, its arguments bound to `args`
        (values of enclosing regions read from `outer`)."""
        if depth > MAX_DEPTH:
            raise TooLarge(f"its calls and loops nest more than {MAX_DEPTH} deep")
        block = region.blocks[0]
        env = ChainMap(dict(zip(block.arguments, args)), outer)
        operations = list(block.operations)
        for op in operations[:-1]:
            self.deadline()
            for value, origin in zip(op.results, self.results(op, env, depth)):
                env.maps[0][value] = origin
        return [env.get(o, _NONE) for o in operations[-1].operands]

    def function(self, name: str, args: tuple, depth: int) -> list:
        key = (name, args)
        if key not in self._callees:
            self._callees[key] = [_NONE] * 64   # recursion (none in JAX's output) reads as nothing
            self._callees[key] = self.region(self.funcs[name].regions[0], list(args), {}, depth)
        return self._callees[key]

    def loop(self, op, inits: list, env, depth: int) -> list:
        constant = (frozenset({"constant"}), frozenset())
        carried = [(frozenset({LOOP_INIT}), frozenset(), o[2], None) if o[:2] == constant else (o[0], o[1], o[2], None)
                   for o in inits]
        counter = _counter(op, inits)
        loop = None
        if counter is not None:
            loop = len(self.trips)
            self.trips[loop] = counter[2] - counter[1]
        cond, body = op.regions
        for _ in range(_FIXPOINT_ROUNDS):
            args = list(carried)
            if loop is not None:
                k, first, _ = counter
                args[k] = (args[k][0], args[k][1], args[k][2], (first, ((loop, 1),)))
            self.region(cond, args, env, depth)   # reads nothing a result depends on, but nests
            yielded = self.region(body, args, env, depth)
            if loop is not None and yielded[counter[0]][3] != (counter[1] + 1, ((loop, 1),)):
                loop = None   # not a counter after all: read again without one
                continue
            grown = [_union(c, _settled(y, loop, _shape(v))) for c, y, v in zip(carried, yielded, op.results)]
            if grown == carried:
                break
            carried = grown
        return carried

def _record(origin) -> Origin:
    return Origin(sorted(origin[0]), sorted(origin[1]), sorted(([root, *_unnumbered(piece)] for root, piece in origin[2]),
                                                               key=repr))


def _unnumbered(piece):
    """A piece as recorded: its loop counters' strides kept, their ids (this reading's own
    numbering) dropped."""
    box, m, why = piece
    return piece if m is None or not m[3] else (box, (m[0], m[1], m[2], tuple((-1, c) for _, c in m[3])), why)


class _Vector(tuple):
    """A small integer vector (an index vector of a gather) known element by element: each an
    integer scalar's (constant, terms)."""


def _vector(op, operands):
    """The _Vector of a layout operation's result built from known integer scalars (a
    broadcast, a reshape, a concatenate of them), or a 0-d one reshaped from a vector."""
    shape, name = _shape(op.results[0]) if op.results else None, op.name
    values = [o[3] for o in operands]
    if shape is None or len(shape) > 1 or (shape and shape[0] > 8) or not values or values[0] is None:
        return None
    if name in ("stablehlo.broadcast_in_dim", "stablehlo.reshape") and type(values[0]) is tuple:
        return _Vector((values[0],) * shape[0]) if shape else values[0]
    if name == "stablehlo.reshape" and type(values[0]) is _Vector:
        return values[0] if shape else values[0][0] if len(values[0]) == 1 else None
    if name == "stablehlo.concatenate" and all(type(v) is _Vector for v in values):
        return _Vector(x for v in values for x in v)
    return None


def _own_places(root, value):
    shape = _shape(value)
    return frozenset() if shape is None else frozenset({(root, positions.identity(shape))})


def _constant(op):
    """An integer 0-d constant's value as a scalar (n, ()), else None."""
    if op.name != "stablehlo.constant" or _shape(op.results[0]) != ():
        return None
    found = re.fullmatch(r"dense<(-?\d+|true|false)> : tensor<[iu]\d+>", str(op.attributes["value"]))
    if found is None:
        return None
    text = found.group(1)
    return (int(text == "true"), ()) if text in ("true", "false") else (int(text), ())


def _affine(constant, terms):
    merged = {}
    for loop, c in terms:
        merged[loop] = merged.get(loop, 0) + c
    return constant, tuple(sorted((k, c) for k, c in merged.items() if c))


def _decide(direction, a, b, trips):
    """The truth of `a <direction> b` for every value the loops' counters take, else None."""
    diff = _affine(a[0] - b[0], a[1] + tuple((k, -c) for k, c in b[1]))
    lo = diff[0] + sum(min(0, c * (trips.get(k, 1) - 1)) for k, c in diff[1])
    hi = diff[0] + sum(max(0, c * (trips.get(k, 1) - 1)) for k, c in diff[1])
    tests = {"LT": (hi < 0, lo >= 0), "LE": (hi <= 0, lo > 0), "GT": (lo > 0, hi <= 0), "GE": (lo >= 0, hi < 0),
             "EQ": (lo == hi == 0, lo > 0 or hi < 0), "NE": (lo > 0 or hi < 0, lo == hi == 0)}
    yes, no = tests.get(direction, (False, False))
    return True if yes else False if no else None


def _counter(op, inits):
    """(k, first, bound) when carried value k is a counter the loop runs while it is below a
    constant bound (jax.lax.fori_loop, scan, map: `cond { compare LT, %iterArg_k, %c }`)."""
    cond = op.regions[0].blocks[0]
    operations = list(cond.operations)
    last = operations[-1].operands[0] if operations[-1].operands else None
    compare = next((o for o in operations if o.results and o.results[0] == last), None)
    if compare is None or compare.name != "stablehlo.compare" or \
            str(compare.attributes["comparison_direction"]).split()[-1].rstrip(">") != "LT":
        return None
    arguments = list(cond.arguments)
    left, right = compare.operands
    if left not in arguments:
        return None
    k = arguments.index(left)
    bound = next((_constant(o) for o in operations if o.results and o.results[0] == right), None)
    first = inits[k][3]
    if not isinstance(bound, tuple) or not isinstance(first, tuple) or first[1] or bound[0] <= first[0]:
        return None
    return k, first[0], bound[0]


def _settled(origin, loop, shape):
    """A carried value as the loop leaves it: pieces still at its counter are not followed."""
    if loop is None:
        return origin
    places = frozenset((r, p) if p[1] is None or not any(k == loop for k, _ in p[1][3]) else
                       (r, positions.unknown(shape, "a write at a place that depends on the iteration"))
                       for r, p in origin[2]) if shape is not None else origin[2]
    return origin[0], origin[1], places, None


def _through_call(places, operand, result, target):
    """The places of a custom_call's result from one operand's, as if element k of the result
    were computed from element k of the operand (flat order; a 0-d operand broadcast). What a
    kernel reads besides (rms_norm: the whole row) is its operands' places to judge."""
    if result is None or operand is None:
        return frozenset()
    n_in, n_out = 1, 1
    for d in operand:
        n_in *= d
    for d in result:
        n_out *= d
    if operand == ():
        return _map_places(places, result, lambda p: positions.broadcast_in_dim(p, (), result, []))
    if n_in != n_out:
        return _unfollowed(places, result, f"{target}, whose result is shaped otherwise than its operand")
    return _map_places(places, result, lambda p: positions.reshape(p, operand, result))


def structure(text: str, deadline=lambda: None) -> Structure:
    """The evidence.Structure of a StableHLO module's text (ValueError if it cannot be read,
    TooLarge when it is beyond the reading's bounds; `deadline()` raises TooLarge when the
    time is up)."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        graph = _Graph(module, deadline)
        main = graph.funcs["main"]
        entry = main.regions[0].blocks[0]
        inputs = [str(a.type) for a in entry.arguments]
        args = [(frozenset({f"input:{i}"}), frozenset(), _own_places(f"input:{i}", a), None)
                for i, a in enumerate(entry.arguments)]
        outputs = graph.region(main.regions[0], args, {}, 0)
        calls = [_call(stablehlo.custom_call(op)) for op in graph.calls]
        named = sum(len(o[0]) for o in outputs) + sum(len(o[0]) for ops in graph.operands.values() for o in ops)
        if named > MAX_SOURCES:
            raise TooLarge(f"its outputs and custom_calls take their values from more than {MAX_SOURCES} sources "
                           "in all")
        operands = [[_record(o) for o in graph.operands.get(i, [])] for i in range(len(calls))]
        results = [str(t) for t in ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).results]
        return Structure(calls, [_record(o) for o in outputs], operands, inputs, results)


def _call(c: stablehlo.CustomCall) -> Call:
    return Call(c.target, c.kind, dict(c.attributes), list(c.operand_types), list(c.result_types), c.side_effect)
