"""silu_ffi's observations, run where the student's code runs. Exposed to the tests'
questions as `witness`.

`eager(fn, *args)` is how the grader judges an eager call (silu_ffi(x) outside jax.jit) by
where its values come from, as it judges a traced one: it runs `fn(*args)` eagerly,
recording every primitive the call binds at the top level, and returns a function that binds
the same primitives, with the same parameters, on its inputs in the same order. The test
hands that function to the executor as any other program (Ask.program): the eager call's
values are then the ones a kernel of the program computes, poisoned like any other, and an
eager path that computes SiLU in JAX, in NumPy or in a host callback shows as such.
"""
from __future__ import annotations

import threading

import jax
from jax._src import core as _core

# Bound when this module is imported, before the notebook runs.
_EVAL_TRACE = _core.EvalTrace
_PROCESS_PRIMITIVE = _core.EvalTrace.process_primitive
_DISABLE_JIT = jax.disable_jit
_LOCK = threading.Lock()


_RESULTS: dict = {}   # what eager calls returned, by the key the grader gave (result(key))


def eager(fn, *args, key=None):
    """`fn(*args)` run eagerly, with jax.jit disabled inside it (so that a jitted helper binds
    its primitives one by one, where they are seen), and every primitive bound at the top
    level (not inside another primitive's implementation) recorded with its operands and
    results. Returns `replay(*inputs)`: those primitives bound again in order on `inputs`
    standing for `args`; an operand that is neither one of `args` nor a recorded result (a
    NumPy array, a value computed outside JAX) is a constant of the replay, and so is an
    output that no recorded primitive returned. With `key`, what the call returned is kept
    for `result(key)`: the grader checks the values of the very call it read."""
    records, depth = [], [0]

    def recording(self, primitive, operands, params, /):
        if depth[0]:
            return _PROCESS_PRIMITIVE(self, primitive, operands, params)
        depth[0] += 1
        try:
            out = _PROCESS_PRIMITIVE(self, primitive, operands, params)
        finally:
            depth[0] -= 1
        records.append((primitive, dict(params), list(operands),
                        list(out) if primitive.multiple_results else [out]))
        return out

    with _LOCK:
        _EVAL_TRACE.process_primitive = recording
        try:
            with _DISABLE_JIT():
                result = fn(*args)
        finally:
            _EVAL_TRACE.process_primitive = _PROCESS_PRIMITIVE
    if key is not None:
        _RESULTS[key] = result
    leaves, tree = jax.tree.flatten(result)

    def replay(*inputs):
        values = {id(a): v for a, v in zip(args, inputs)}   # records hold every object: ids stay unique
        for primitive, params, operands, outs in records:
            got = primitive.bind(*[values.get(id(o), o) for o in operands], **params)
            for o, r in zip(outs, got if primitive.multiple_results else [got]):
                values[id(o)] = r
        return jax.tree.unflatten(tree, [values.get(id(leaf), leaf) for leaf in leaves])
    replay.__name__ = f"eager_{getattr(fn, '__name__', 'call')}"
    return replay


def result(key):
    """What the eager call recorded under `key` returned."""
    return _RESULTS[key]
