"""Facts about a student's JAX program, as plain data, for the tests' questions.

These run where the student's code runs (the witness, or the notebook itself under
`grader.check`) and return only lists, dicts, strings, numbers and arrays, which
`autograder.wire` carries back to the grader. They only observe: the verdict is
reached by the test code in the grader's process. See autograder/probe.py.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Callable

import numpy as np

from autograder import inspection

_PRIMITIVES = {"pure_callback": inspection.pure_callback_p, "io_callback": inspection.io_callback_p,
               "debug_callback": inspection.debug_callback_p, "ffi_call": inspection.ffi_call_p}


def custom_calls(fn: Callable, *args) -> list[dict]:
    """Every stablehlo.custom_call in `jax.jit(fn).lower(*args)`: target, kind ("ffi",
    "host_callback" or "builtin"), attributes {name: {"value", "type"}}, operand and
    result types."""
    return [dataclasses.asdict(c) for c in inspection.custom_calls(inspection.lower(fn, *args))]


def ffi_targets(fn: Callable, *args) -> list[str]:
    """Targets of the registered FFI handlers the lowering calls, in program order."""
    return [c["target"] for c in custom_calls(fn, *args) if c["kind"] == "ffi"]


def primitive_names(fn: Callable, *args) -> list[str]:
    """The sorted names of every primitive in make_jaxpr(fn)(*args), nested ones included."""
    return sorted(set(inspection.primitive_names(inspection.make_jaxpr(fn, *args))))


def count_eqns(fn: Callable, *args, primitive: str) -> int:
    """How many equations of `primitive` ("pure_callback", "io_callback", "debug_callback",
    "ffi_call", or any other primitive name) the jaxpr holds, nested ones included."""
    jaxpr = inspection.make_jaxpr(fn, *args)
    return len(inspection.find_eqns(jaxpr, _PRIMITIVES.get(primitive, primitive)))


def rules(primitive) -> dict[str, bool]:
    """{"JVP rule": bool, "transpose rule": bool, "batching rule": bool}; a primitive that
    is not a jax.extend.core.Primitive has none."""
    if not isinstance(primitive, inspection.jex_core.Primitive):
        return {"JVP rule": False, "transpose rule": False, "batching rule": False}
    return inspection.registered_rules(primitive)


def host_calls(fn: Callable, example, inputs: list) -> dict:
    """Find the one pure_callback (or io_callback) in make_jaxpr(fn)(example) and call its
    host function directly on each of `inputs`. Returns {"callbacks": how many callback
    equations, "calls": [{"outputs", "type", "value", "printed"} or {"error", "printed"}]}."""
    jaxpr = inspection.make_jaxpr(fn, example)
    eqns = (inspection.find_eqns(jaxpr, inspection.pure_callback_p)
            or inspection.find_eqns(jaxpr, inspection.io_callback_p))
    report = {"callbacks": len(eqns), "calls": []}
    if len(eqns) != 1:
        return report
    host = inspection.callback_function(eqns[0])
    for arg in inputs:
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                outs = host(arg)
            first = outs[0] if outs else None
            report["calls"].append({
                "outputs": len(outs), "printed": printed.getvalue()[:2000],
                "type": f"{type(first).__module__}.{type(first).__name__}",
                "value": np.asarray(first) if first is not None else None})
        except Exception as exc:  # student code may raise anything
            from autograder.checks import describe
            report["calls"].append({"error": describe(exc), "printed": printed.getvalue()[:2000]})
    return report
