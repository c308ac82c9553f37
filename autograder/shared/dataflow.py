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

The executor runs this on texts the witness handed over (autograder/executor/program.py,
op "structure"); the verdicts read the evidence.Structure it returns.
"""
from __future__ import annotations

from jax._src.interpreters import mlir as jax_mlir   # make_ir_context: JAX's dialects registered
from jax.extend.mlir import ir

from autograder.shared import stablehlo
from autograder.shared.evidence import Call, Origin, Structure

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
_FIXPOINT_ROUNDS = 16   # a carried value's origin can only grow; the lattice is small

_NONE = (frozenset(), frozenset())


def _union(*origins):
    return (frozenset().union(*(o[0] for o in origins)), frozenset().union(*(o[1] for o in origins)))


def _element_type(value) -> str:
    return str(value.type).rsplit("x", 1)[-1].removesuffix(">")


class _Graph:
    def __init__(self, module: ir.Module):
        self.funcs = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.funcs[op.attributes["sym_name"].value] = op.operation
        if "main" not in self.funcs:
            raise ValueError("the program has no main function")
        self.calls = [op for op in stablehlo.walk(module.operation) if op.name == "stablehlo.custom_call"]
        self.call_index = {op: i for i, op in enumerate(self.calls)}
        self.operands: dict[int, list] = {}   # custom_call index -> its operands' origins (union over sites)
        self._callees: dict = {}

    # ---------------------------------------------------------------- values

    def value(self, v, env: dict, memo: dict):
        if v in env:
            return env[v]
        if v in memo:
            return memo[v]
        memo[v] = _NONE   # a cycle (none in SSA outside loops) reads as nothing
        if isinstance(v, ir.BlockArgument):
            raise ValueError("a block argument outside its region")
        op = v.owner
        memo[v] = origin = self.result(op, v.result_number, env, memo)
        return origin

    def result(self, op, number: int, env: dict, memo: dict):
        name = op.name
        if name in _LEAVES:
            return (frozenset({"constant"}), frozenset())
        if name == "stablehlo.custom_call":
            target = op.attributes["call_target_name"].value
            ins = [self.value(o, env, memo) for o in op.operands]
            index = self.call_index[op]
            seen = self.operands.get(index)
            self.operands[index] = ins if seen is None else [_union(a, b) for a, b in zip(seen, ins)]
            if target in _PASS_THROUGH_TARGETS and ins:
                return ins[0]
            return (frozenset({f"call:{index}"}), frozenset())
        if name == "func.call":
            callee = op.attributes["callee"].value
            return self.function(callee, tuple(self.value(o, env, memo) for o in op.operands))[number]
        if name == "stablehlo.while":
            return self.loop(op, env, memo)[number]
        if name in ("stablehlo.case", "stablehlo.if"):
            branches = [self.region(r, [], env) for r in op.regions]
            return _union(*(b[number] for b in branches))
        operands = list(op.operands)
        if name == "stablehlo.convert" and _element_type(operands[0]) == _element_type(op.results[0]):
            return self.value(operands[0], env, memo)
        if name in _LAYOUT:
            picked = _LAYOUT[name]
            chosen = operands if picked is None else [operands[i] for i in picked if i < len(operands)]
            return _union(_NONE, *(self.value(o, env, memo) for o in chosen))
        inner = _union(_NONE, *(self.value(o, env, memo) for o in operands))
        return (inner[0], inner[1] | {name.removeprefix("stablehlo.")})

    # -------------------------------------------------------- regions, calls

    def region(self, region, args: list, outer: dict) -> list:
        """The origins of the values a one-block region returns, its arguments bound to `args`."""
        block = region.blocks[0]
        env = dict(outer)
        env.update(zip(block.arguments, args))
        memo: dict = {}
        terminator = block.operations[len(block.operations) - 1]
        values = [self.value(o, env, memo) for o in terminator.operands]
        for op in block.operations:   # a call whose results reach nothing (an io_callback for its effect): its operands too
            if op.name == "stablehlo.custom_call" and self.call_index.get(op) not in self.operands:
                self.result(op, 0, env, memo)
        return values

    def function(self, name: str, args: tuple) -> list:
        key = (name, args)
        if key not in self._callees:
            self._callees[key] = [_NONE] * 64   # recursion (none in JAX's output) reads as nothing
            self._callees[key] = self.region(self.funcs[name].regions[0], list(args), {})
        return self._callees[key]

    def loop(self, op, env: dict, memo: dict) -> list:
        inits = []
        for o in op.operands:
            origin = self.value(o, env, memo)
            if origin == (frozenset({"constant"}), frozenset()):
                origin = (frozenset({"loop-init"}), frozenset())
            inits.append(origin)
        carried = inits
        body = op.regions[1]
        for _ in range(_FIXPOINT_ROUNDS):
            yielded = self.region(body, carried, env)
            grown = [_union(c, y) for c, y in zip(carried, yielded)]
            if grown == carried:
                break
            carried = grown
        return carried


def _record(origin) -> Origin:
    return Origin(sorted(origin[0]), sorted(origin[1]))


def structure(text: str) -> Structure:
    """The evidence.Structure of a StableHLO module's text (ValueError if it cannot be read)."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        graph = _Graph(module)
        main = graph.funcs["main"]
        entry = main.regions[0].blocks[0]
        inputs = [str(a.type) for a in entry.arguments]
        args = [(frozenset({f"input:{i}"}), frozenset()) for i in range(len(inputs))]
        outputs = graph.region(main.regions[0], args, {})
        calls = [_call(c) for c in stablehlo.custom_calls(module)]
        operands = [[_record(o) for o in graph.operands.get(i, [])] for i in range(len(calls))]
        results = [str(t) for t in ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).results]
        return Structure(calls, [_record(o) for o in outputs], operands, inputs, results)


def _call(c: stablehlo.CustomCall) -> Call:
    return Call(c.target, c.kind, dict(c.attributes), list(c.operand_types), list(c.result_types), c.side_effect)
