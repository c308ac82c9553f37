"""Where each value of a StableHLO program comes from, decided on its graph alone.

A program lowered at abstract shapes (jax.ShapeDtypeStruct: 2^31 - 1 elements cost what 8
do) is never run; its graph already says, for every result of `main` and every operand of
every custom_call, which sources its values come from and which operations computed them:

    sources  "input:<i>"   main's argument i
             "call:<i>"    custom_call number i (program order, as stablehlo.custom_calls)
             "constant"    a constant or an iota (or elementwise operations on constants alone,
                           which XLA folds: a padding value converted to the input's type)
             "loop-init"   a constant a while loop starts a carried value with (the buffer a
                           sequential vmap or a scan writes its slices into)
    math     the operations between a source and the value that are not layout operations
             (add, multiply, exponential, select, a convert that changes the type, ...)

Layout operations move or copy elements without computing: reshape, transpose, broadcast,
slice, concatenate, dynamic (update) slice, gather, a scatter that overwrites (x.at[i].set),
pad (its padding value a source), reverse, copy, tuples, a convert to the same type,
sharding annotations. Positions (the
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

from collections import ChainMap

from jax._src.interpreters import mlir as jax_mlir   # make_ir_context: JAX's dialects registered
from jax.extend.mlir import ir

from autograder.shared import indices, moves, scalars, stablehlo
from autograder.shared.moves import capped, map_places, own_places, settled, through_call, unfollowed, unnumbered
from autograder.shared.scalars import shape_of
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
    "xor bitcast_convert reduce_precision").split()) | frozenset(f"chlo.{n}" for n in (
    "acos acosh asin asinh atan atanh bessel_i1e conj cosh digamma erf erf_inv erfc is_inf is_neg_inf "
    "is_pos_inf lgamma polygamma sinh square tan zeta next_after").split())
_FIXPOINT_ROUNDS = 16   # a carried value's origin can only grow; the lattice is small

# A value's origin: (sources, math, places, scalar). places: frozenset of (root, piece)
# (shared/positions.py), root "input:<i>"; scalar: an integer 0-d value's (constant, ((loop,
# coefficient), ...)) when known (a dynamic slice's start at a loop's counter), a predicate's
# bool, else None.
_NONE = (frozenset(), frozenset(), frozenset(), None)


def _union(*origins):
    return (frozenset().union(*(o[0] for o in origins)), frozenset().union(*(o[1] for o in origins)),
            frozenset().union(*(o[2] for o in origins)), None)


def _overwritten(origin):
    """The origin of a buffer that a loop carries, or that a scatter or a dynamic update slice
    writes over: a constant one (a loop's zeros, jnp.zeros(n).at[idx].set(v)) is named
    LOOP_INIT, not a source of the result; an element left at it is a counterexample of coverage
    (placement.uncovered), and where the positions are not followed the program is run."""
    if origin[:2] == (frozenset({"constant"}), frozenset()):
        return (frozenset({LOOP_INIT}), frozenset(), origin[2], origin[3])
    return origin


def _element_type(value) -> str:
    return str(value.type).rsplit("x", 1)[-1].removesuffix(">")


class TooLarge(ValueError):
    """The program is beyond what the grader reads (its sentence says which bound)."""


MAX_DEPTH = 64   # regions nested in regions and calls in calls (jit in jit, a loop in a loop)
MAX_TEXT_BYTES = 16 << 20   # one program's text (the witness hands over no larger; the executor reads no larger)
MAX_SOURCES = 200_000   # sources named by all the outputs' and operands' origins together (the reply's size)


class _Graph(moves.Moves):
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
            return [(frozenset({"constant"}), frozenset(), frozenset(),
                     scalars.constant(op) or scalars.iota(op) or scalars.ones(op) or indices.leaf(op))] * count
        operands = [env.get(o, _NONE) for o in op.operands]
        if not any(0 in (shape_of(r) or ()) for r in op.results):
            # a value without elements gives a result with elements nothing (a scan's empty
            # buffer concatenated); an empty result keeps its origin, which rules read
            operands = [(*_NONE[:3], o[3]) if 0 in (shape_of(v) or ()) else o for o, v in zip(operands, op.operands)]
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
        if name == "stablehlo.dynamic_update_slice":
            operands = [_overwritten(operands[0]), *operands[1:]]
        if name == "stablehlo.scatter" and moves.overwrites(op):   # x.at[i].set(v): elements moved
            moved = _union(_NONE, _overwritten(operands[0]), operands[2])
            return [(moved[0], moved[1], self.scatter(op, operands, shape_of(op.results[0])), None)] * count
        if name in _LAYOUT:
            picked = _LAYOUT[name]
            chosen = operands if picked is None else [operands[i] for i in picked if i < len(operands)]
            moved = _union(_NONE, *chosen)
            known = scalars.vector(op, operands, self.trips)
            known = indices.of(op, [o[3] for o in operands]) if known is None else known
            return [(moved[0], moved[1], self.layout(op, operands), known)] * count
        if name == "stablehlo.select" and len(operands) == 3:
            pick = indices.decided(operands[0][3], shape_of(op.operands[0]))
            if pick is not None:   # a predicate decided for every element: the select is that operand
                return [operands[1] if pick else operands[2]] * count
        inner = _union(_NONE, *operands)
        shape = shape_of(op.results[0]) if count else None
        scalar = scalars.of(op, [o[3] for o in operands], self.trips) if name in _ELEMENTWISE else None
        if scalar is None and (name in _ELEMENTWISE or name == "stablehlo.reduce"):
            scalar = indices.of(op, [o[3] for o in operands])
        if inner[0] and inner[0] <= {"constant"}:
            # computed from constants alone (elementwise, or a reduction such as jnp.take's
            # bounds test, an `and` across an arange's index vector): a constant
            return [(inner[0], frozenset(), frozenset(), scalar)] * count
        if name in _ELEMENTWISE:
            places = frozenset().union(*(self.broadcast(o[2], op.operands[i], shape)
                                         for i, o in enumerate(operands)))
        elif name == "stablehlo.reduce":
            places = self.reduce(op, operands)
        elif name == "stablehlo.dot_general" and [o[3] == scalars.ONES for o in operands[:2]].count(True) == 1:
            # a dot with a value of ones (jnp.tensordot(t, ones)): a sum of the other operand
            places = self.summed_by_ones(op, operands, shape)
            return [(inner[0], inner[1] | {"reduce"}, places, None)] * count
        else:
            places = unfollowed(inner[2], shape, name)
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
            shape = shape_of(result)
            if target in moves.REDUCTIONS:
                places = self.summed(op, operands[0][2], moves.REDUCTIONS[target], shape) if operands else frozenset()
            else:
                places = frozenset().union(*(through_call(origin[2], shape_of(value), shape, target)
                                             for value, origin in zip(op.operands, operands)))
            out.append((frozenset({f"call:{index}"}), frozenset(), capped(places, shape), None))
        return out

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
        carried = [(*_overwritten(o)[:3], None) for o in inits]
        counter = scalars.counter(op, inits)
        loop, steps = None, {}
        cond, body = op.regions
        if counter is not None:
            loop = len(self.trips)
            self.trips[loop] = counter[2] - counter[1]
            steps = self._steps(body, carried, inits, counter, loop, env, depth)
        # integers the body hands back as they came (a bound, scan's jnp.arange): known inside
        kept = {j: o[3] for j, o in enumerate(inits)
                if o[3] is not None and j not in steps and (counter is None or j != counter[0])}
        for _ in range(_FIXPOINT_ROUNDS):
            args = list(carried)
            for j, value in kept.items():
                args[j] = (args[j][0], args[j][1], args[j][2], value)
            if loop is not None:
                k, first, _ = counter
                for j, (start, step) in {k: (first, 1), **steps}.items():
                    args[j] = (args[j][0], args[j][1], args[j][2], scalars.affine(start, ((loop, step),)))
            self.region(cond, args, env, depth)   # reads nothing a result depends on, but nests
            yielded = self.region(body, args, env, depth)
            changed = {j for j, value in kept.items() if yielded[j][3] != value}
            if changed:   # not handed back as they came after all: read again without them
                kept = {j: v for j, v in kept.items() if j not in changed}
                continue
            if loop is not None and yielded[counter[0]][3] != (counter[1] + 1, ((loop, 1),)):
                loop = None   # not a counter after all: read again without one
                continue
            wrong = {j for j, (start, step) in steps.items()
                     if yielded[j][3] != scalars.affine(start + step, ((loop, step),))}
            if wrong:   # not stepping by a constant after all: read again without them
                steps = {j: v for j, v in steps.items() if j not in wrong}
                continue
            grown = [_union(c, settled(y, loop, shape_of(v))) for c, y, v in zip(carried, yielded, op.results)]
            if grown == carried:
                break
            carried = grown
        return carried

    def _steps(self, body, carried, inits, counter, loop, env, depth) -> dict:
        """{k: (first, step)} of the loop's other integer scalars that start at a constant and
        that the body moves by a constant (the index of jax.lax.fori_loop beside the trip counter
        its lowering compares): each iteration's value is then first + step * the iteration, which
        loop() checks on the body before it relies on it."""
        k, first, _ = counter
        known = {j: o[3][0] for j, o in enumerate(inits) if j != k and type(o[3]) is tuple and not o[3][1]}
        if not known:
            return {}
        args = list(carried)
        args[k] = (args[k][0], args[k][1], args[k][2], (first, ((loop, 1),)))
        for j, start in known.items():
            args[j] = (args[j][0], args[j][1], args[j][2], (start, ()))
        yielded = self.region(body, args, env, depth)   # the first iteration: how far each moves
        return {j: (start, yielded[j][3][0] - start) for j, start in known.items()
                if type(yielded[j][3]) is tuple and not yielded[j][3][1] and yielded[j][3][0] != start}


def _record(origin) -> Origin:
    return Origin(sorted(origin[0]), sorted(origin[1]), sorted(([root, *unnumbered(piece)] for root, piece in origin[2]),
                                                               key=repr))


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
        args = [(frozenset({f"input:{i}"}), frozenset(), own_places(f"input:{i}", a), None)
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
