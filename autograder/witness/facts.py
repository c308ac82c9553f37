"""Facts about a student's JAX program, as plain data, for the tests' questions.

These run where the student's code runs (the witness, or the notebook itself under
`grader.check`) and return only lists, dicts, strings, numbers and arrays, which
`autograder.shared.wire` carries back to the grader. They only observe: the verdict is
reached by the test code in the grader's process. See autograder/shared/probe.py.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable

import numpy as np

from autograder.witness import hostcall, inspection

_PRIMITIVES = {"pure_callback": inspection.pure_callback_p, "io_callback": inspection.io_callback_p,
               "debug_callback": inspection.debug_callback_p, "ffi_call": inspection.ffi_call_p}


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


def _one_host_function(fn: Callable, example):
    """(how many callback equations, the one callback's host function or None), found as
    host_calls finds it: host(*flat_args) is _student_call's bound function."""
    jaxpr = inspection.make_jaxpr(fn, example)
    eqns = (inspection.find_eqns(jaxpr, inspection.pure_callback_p)
            or inspection.find_eqns(jaxpr, inspection.io_callback_p))
    if len(eqns) != 1:
        return len(eqns), None
    flat = eqns[0].params["callback"]
    host = functools.partial(_student_call, flat)
    host.student = flat.callback_func
    return 1, host


def _student_call(flat, *flat_args):
    """The student's own host function of a callback equation (params["callback"]) bound
    to flat operands, ready for hostcall.call: JAX's wrapper that flattens arguments is
    left out, so that only the student's code is observed."""
    from jax import tree_util
    args, kwargs = tree_util.tree_unflatten(flat.in_tree, flat_args)
    return functools.partial(flat.callback_func, *args, **kwargs)


def host_calls(fn: Callable, example, inputs: list) -> dict:
    """Find the one pure_callback (or io_callback) in make_jaxpr(fn)(example) and call its
    host function directly on each of `inputs`, observed from below Python
    (autograder.witness.hostcall). Returns {"callbacks": how many callback equations, "calls": [per
    input: {"outputs": how many, "type": the first output's class, "value": the first
    output as an array, "values": every output as an array} or {"error"}, and in both cases
    "stdout" (everything it printed or wrote to fds 1 and 2; "stderr" is kept empty),
    "files" (paths it opened), "events" (processes, sockets, removals it started), "jax"
    (whether JAX code ran inside it)]}."""
    from jax import tree_util
    count, host = _one_host_function(fn, example)
    report = {"callbacks": count, "calls": []}
    if host is None:
        return report
    for arg in inputs:
        seen = hostcall.call(host(arg))
        call = {"stdout": seen["output"], "stderr": "", "files": seen["files"],
                "events": seen["events"], "jax": seen["jax"]}
        if "error" in seen:
            call["error"] = seen["error"]
        else:
            outs = tree_util.tree_leaves(seen["result"])
            first = outs[0] if outs else None
            call.update(outputs=len(outs), type=f"{type(first).__module__}.{type(first).__name__}",
                        value=None if first is None else np.asarray(first),
                        values=[np.asarray(o) for o in outs])
        report["calls"].append(call)
    return report


# ---- gammaln_callback ----

def _operand_like(aval, example: np.ndarray) -> np.ndarray:
    """A NumPy array shaped and typed like a callback operand: `example`'s values when the
    sizes agree (the operand is the input, reshaped or copied), else values from 0.5 to 5."""
    shape, dtype = tuple(aval.shape), np.dtype(aval.dtype)
    size = int(np.prod(shape, dtype=np.int64))
    values = example.ravel() if example.size == size else np.linspace(0.5, 5.0, size)
    return np.array(values.reshape(shape), dtype=dtype)   # a copy, C-ordered, 0-d kept


def host_functions(fn: Callable, example) -> list[dict]:
    """Every pure_callback and io_callback equation of make_jaxpr(fn)(example), in walk
    order, with its host function (the student's own function; JAX's flattening wrapper is
    left out) called once, directly and observed from below Python (autograder.witness.hostcall),
    on NumPy arrays shaped and typed like its operands (`example`'s values when the sizes
    agree). Each entry: {"primitive", "declared": [[shape, dtype] per declared result],
    "returned": [[shape, dtype, class name] per output] or "error", "jax": whether JAX code
    ran inside it, "stdout", "files", "events"}."""
    from jax import tree_util
    example = np.asarray(example)
    report = []
    for eqn in inspection.iter_eqns(inspection.make_jaxpr(fn, example)):
        if eqn.primitive not in (inspection.pure_callback_p, inspection.io_callback_p):
            continue
        operands = [_operand_like(v.aval, example) for v in eqn.invars]
        seen = hostcall.call(_student_call(eqn.params["callback"], *operands))
        entry = {"primitive": "pure_callback" if eqn.primitive is inspection.pure_callback_p else "io_callback",
                 "declared": [[list(a.shape), str(np.dtype(a.dtype))] for a in eqn.params["result_avals"]],
                 "jax": seen["jax"], "stdout": seen["output"], "files": seen["files"], "events": seen["events"]}
        if "error" in seen:
            entry["error"] = seen["error"]
        else:
            entry["returned"] = [[list(np.shape(o)), str(np.asarray(o).dtype), type(o).__name__]
                                 for o in tree_util.tree_leaves(seen["result"])]
        report.append(entry)
    return report


def eager_replaced(fn: Callable, *args, replace: tuple[str, ...] = ()) -> dict:
    """`fn(*args)` run eagerly (no jit), as it is and with each dotted name of `replace`
    poisoned wherever it is referenced; a report shaped like provenance.trace's."""
    import jax

    from autograder.witness import provenance
    report = {"value": provenance._flat(jax.block_until_ready(fn(*args))), "calls": [], "poisoned": {}}
    provenance.poison_replaced(report, fn, args, replace)
    return report


# ---- pure_callback_doubler ----

def call_result(value) -> dict:
    """What a call returned: {"type": its class name, "jax_array": whether it is a jax.Array,
    "shape": its shape as a list (None without one), "value": the array if it is a jax or
    NumPy array, else None}."""
    import jax
    shape = getattr(value, "shape", None)
    return {"type": type(value).__name__, "jax_array": isinstance(value, jax.Array),
            "shape": list(shape) if isinstance(shape, tuple) else None,
            "value": value if isinstance(value, (jax.Array, np.ndarray)) else None}


_IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open", "_ih", "_oh", "_dh", "_exit_code"})
# What IPython binds for each cell it runs (_, __, ___, _i, _ii, _iii, _i3, _3), and dunders.
_IPYTHON_HISTORY = re.compile(r"_{1,3}|_i{1,3}|_i?\d+|__\w+__")


def _settings() -> dict:
    """The process-wide settings a host function could change, by the name the student reads."""
    import random
    import sys
    import warnings

    import jax
    return {"NumPy's error state (np.seterr)": [np.geterr(), np.geterrcall()],
            "NumPy's print options (np.set_printoptions)": np.get_printoptions(),
            "NumPy's global random state (np.random.seed)": np.random.get_state(),
            "Python's random state (random.seed)": random.getstate(),
            "JAX's configuration (jax.config.update)": dict(jax.config.values),
            "the environment (os.environ)": dict(os.environ),
            "the working directory (os.chdir)": os.getcwd(),
            "the import path (sys.path)": list(sys.path),
            "the warning filters (warnings.simplefilter)": list(warnings.filters),
            "sys.stdout or sys.stderr": [id(sys.stdout), id(sys.stderr)]}


def _state(namespace: dict, student) -> dict:
    """A deep fingerprint (autograder.witness.hostcall) of every notebook global (private
    ones such as `_CACHE` too; IPython's own names aside), of the host function itself (its
    attributes, closure, defaults and, for a callable object, its class), of the globals its
    code names where it was defined, and of the process-wide settings, by name."""
    roots = {n: v for n, v in list(namespace.items())
             if n not in _IPYTHON_NAMES and not _IPYTHON_HISTORY.fullmatch(n)}
    roots["(the host function)"] = student
    code_of = getattr(student, "__func__", student)
    if isinstance(getattr(code_of, "__globals__", None), dict) and code_of.__globals__ is not namespace:
        roots["(the globals of the host function's module)"] = hostcall.reachable_globals(code_of, code_of.__globals__)
    roots.update(_settings())
    return {name: hostcall.fingerprint(value) for name, value in roots.items()}


# NumPy's process-wide settings as they were before any student code ran (the witness imports
# this module first): each observed call starts from them, so a host function that sets them
# is seen doing so on every call, not only the first one of the grading.
_NUMPY_BASELINE = (np.geterr(), np.get_printoptions())


class _Purity:
    """Each call of a host function observed on its own: its output at file-descriptor
    level, the files it opened, the processes and sockets it started (hostcall.call), and
    what it changed (a deep snapshot of the state, and the working folder, just before and
    just after that call). What happens between calls (the wrapper tracing, JAX compiling)
    is not the host function's and is not seen."""

    def __init__(self, namespace: dict):
        self.namespace, self.calls = namespace, []

    def call(self, student, bound, via: str) -> dict:
        saved = np.geterr(), np.get_printoptions()
        np.seterr(**_NUMPY_BASELINE[0])
        np.set_printoptions(**_NUMPY_BASELINE[1])
        try:
            before, folder = _state(self.namespace, student), set(os.listdir("."))
            seen = hostcall.call(bound)
            after, folder_after = _state(self.namespace, student), set(os.listdir("."))
        finally:
            np.seterr(**saved[0])
            np.set_printoptions(**saved[1])
        entry = {"via": via, "output": seen["output"], "files": seen["files"], "events": seen["events"],
                 "changed": sorted(n for n in before if n in after and before[n] != after[n]),
                 "added": sorted(set(after) - set(before)), "removed": sorted(set(before) - set(after)),
                 "files_added": sorted(folder_after - folder), "files_removed": sorted(folder - folder_after)}
        if "error" in seen:
            entry["error"] = seen["error"]
        self.calls.append(entry)
        return seen

    def observed(self, via: str):
        """A replacement of JAX's _FlatCallback.__call__ (see _flat_callback_calls) through
        which every host callback JAX runs is observed as above."""
        from jax import tree_util

        def observed(flat, *flat_args):
            args, kwargs = tree_util.tree_unflatten(flat.in_tree, flat_args)
            seen = self.call(flat.callback_func, functools.partial(flat.callback_func, *args, **kwargs), via)
            if "error" in seen:
                raise RuntimeError(seen["error"])
            return tree_util.tree_leaves(seen["result"])
        return observed


@contextlib.contextmanager
def _flat_callback_calls(replacement):
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


def host_purity(fn: Callable, example, inputs: list, namespace: dict) -> dict:
    """Find the one callback of make_jaxpr(fn)(example), as host_calls does; call its host
    function directly on each of `inputs`, then run fn and jax.jit(fn) on each input (as a
    jax array) as JAX runs them, each call of the host function observed on its own (see
    _Purity; pass __notebook__ as `namespace`). Returns {"callbacks", "calls": [per call, in
    order: {"via": "direct" | "eager" | "jit", "output", "files", "events", "changed",
    "added", "removed": names of the state that call changed ("(the host function)" for
    its own, a setting by its name), "files_added", "files_removed": names in the working
    folder, "error" if it raised}], "values": [the direct calls' outputs, as arrays]}.
    Failures of fn and jit(fn) themselves are the other tests' business and ignored."""
    import jax
    import jax.numpy as jnp
    from jax import tree_util

    count, host = _one_host_function(fn, example)
    report = {"callbacks": count, "calls": [], "values": []}
    if host is None:
        return report
    purity = _Purity(namespace)
    for arg in inputs:
        seen = purity.call(host.student, host(arg), "direct")
        report["values"].append(None if "error" in seen else [np.asarray(o) for o in tree_util.tree_leaves(seen["result"])])
    for via, run in (("eager", fn), ("jit", jax.jit(fn))):
        with _flat_callback_calls(purity.observed(via)):
            for arg in inputs:
                try:
                    jax.block_until_ready(run(jnp.asarray(arg)))
                    jax.effects_barrier()
                except Exception:  # failures of these calls are the other tests' business
                    pass
    report["calls"] = purity.calls
    return report


# ---- pure_callback_doubler (the eager path) ----

def eager_trace(fn: Callable, *args) -> dict:
    """`fn(*args)` run eagerly (not under jit): as it is ("value"), then again with the output
    of every host callback that runs during the call (pure_callback and io_callback call the
    host function through JAX's _FlatCallback, eagerly or compiled) replaced by the grader's
    poison values. A report shaped like provenance.trace's, for checks.expect_depends and
    expect_straight: "poisoned": {"host_callback": {"outputs", "sizes"}, or None when no host
    callback ran during the call}."""
    import jax
    from jax._src import callback

    from autograder.shared import poison
    from autograder.witness import provenance
    report = {"value": provenance._flat(jax.block_until_ready(fn(*args))), "calls": [], "poisoned": {}}
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
    with _flat_callback_calls(poisoned):
        outputs = provenance._flat(jax.block_until_ready(fn(*args)))
        jax.effects_barrier()
    report["poisoned"]["host_callback"] = {"outputs": outputs, "sizes": sizes} if sizes else None
    return report


# ---- reduce_sum_rules ----

from autograder.witness.rule_poison import primitive_state, rule_dependence  # noqa: E402,F401
