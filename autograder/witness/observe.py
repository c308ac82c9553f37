"""Observations of a student's JAX program that more than one exercise asks for, as plain
data: how many equations of a primitive a jaxpr holds, and the program run eagerly with
every host callback's output poisoned. They run where the student's code runs (the
witness, or the notebook itself under `grader.check`) and only observe: the verdict is
reached by the test code in the grader's process (autograder.shared.probe). What only one
exercise needs lives in its own `autograder/assignments/<name>/witness.py`.
"""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable

import numpy as np

from autograder.witness import inspection

_PRIMITIVES = {"pure_callback": inspection.pure_callback_p, "io_callback": inspection.io_callback_p,
               "debug_callback": inspection.debug_callback_p, "ffi_call": inspection.ffi_call_p}


def count_eqns(fn: Callable, *args, primitive: str) -> int:
    """How many equations of `primitive` ("pure_callback", "io_callback", "debug_callback",
    "ffi_call", or any other primitive name) the jaxpr holds, nested ones included."""
    jaxpr = inspection.make_jaxpr(fn, *args)
    return len(inspection.find_eqns(jaxpr, _PRIMITIVES.get(primitive, primitive)))


def student_call(flat, *flat_args):
    """The student's own host function of a callback equation (params["callback"]) bound
    to flat operands, ready for hostcall.call: JAX's wrapper that flattens arguments is
    left out, so that only the student's code is observed."""
    from jax import tree_util
    args, kwargs = tree_util.tree_unflatten(flat.in_tree, flat_args)
    return functools.partial(flat.callback_func, *args, **kwargs)


@contextlib.contextmanager
def flat_callback_calls(replacement):
    """While inside, `replacement(flat_callback, *flat_args)` runs for every host callback
    JAX runs, eagerly or compiled (pure_callback and io_callback call the host function
    through JAX's _FlatCallback), instead of _FlatCallback.__call__."""
    from jax._src import callback
    original = callback._FlatCallback.__call__
    callback._FlatCallback.__call__ = replacement
    try:
        yield
    finally:
        callback._FlatCallback.__call__ = original


def eager_trace(fn: Callable, *args):
    """`fn(*args)` run eagerly (not under jit): as it is (the value), then again with the
    output of every host callback that runs during the call (pure_callback and io_callback
    call the host function through JAX's _FlatCallback, eagerly or compiled) replaced by the
    grader's poison values. An evidence.Report for checks.expect_depends and expect_straight:
    poisoned["host_callback"] is None when no host callback ran during the call."""
    import jax
    from jax._src import callback

    from autograder.shared import poison
    from autograder.shared.evidence import HOST_CALLBACK, Report, Run
    value = [np.asarray(leaf) for leaf in jax.tree.leaves(jax.block_until_ready(fn(*args)))]
    original, sizes = callback._FlatCallback.__call__, []

    def poisoned(self, *a, **k):
        outs = []
        for out in original(self, *a, **k):
            out = np.asarray(out)
            if out.dtype.kind == "f":
                sizes.append(out.size)
                out = poison.values(out.size).reshape(out.shape).astype(out.dtype)
            outs.append(out)
        return outs
    with flat_callback_calls(poisoned):
        outputs = [np.asarray(leaf) for leaf in jax.tree.leaves(jax.block_until_ready(fn(*args)))]
        jax.effects_barrier()
    return Report(calls=[], value=value, poisoned={HOST_CALLBACK: Run(outputs, [int(n) for n in sizes]) if sizes else None},
                  opcodes=[])
