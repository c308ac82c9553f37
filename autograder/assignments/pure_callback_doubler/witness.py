"""pure_callback_doubler's observations, run where the student's code runs: what a call
returned, and the one host function called directly and as JAX calls it, each call observed
on its own (its output, files, processes, and the state it changed). Exposed to the tests'
questions as `witness`."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from autograder.assignments.pure_callback_doubler.records import CallResult, DirectCall, HostCalls
from autograder.shared.evidence import HostPurity
from autograder.witness import hostcall, inspection
from autograder.witness.purity import Purity, writable_and_read_only
from autograder.witness.observe import flat_callback_calls, student_call


def _one_host_function(fn: Callable, example):
    """(how many callback equations, the one callback's host function or None), found as
    host_calls finds it: host(*flat_args) is student_call's bound function."""
    jaxpr = inspection.make_jaxpr(fn, example)
    eqns = (inspection.find_eqns(jaxpr, inspection.pure_callback_p)
            or inspection.find_eqns(jaxpr, inspection.io_callback_p))
    if len(eqns) != 1:
        return len(eqns), None
    flat = eqns[0].params["callback"]   # JAX's equation params (not evidence)
    host = functools.partial(student_call, flat)
    host.student = flat.callback_func
    return 1, host


def host_calls(fn: Callable, example, inputs: list) -> HostCalls:
    """Find the one pure_callback (or io_callback) in make_jaxpr(fn)(example) and call its
    host function directly on each of `inputs`, observed from below Python
    (autograder.witness.hostcall): an records.HostCalls, how many callback equations and
    per input an records.DirectCall (every output as an array and the first one's class,
    or the error; everything it printed or wrote to fds 1 and 2, the paths it opened, the
    processes, sockets, removals it started, whether JAX code ran inside it)."""
    from jax import tree_util
    count, host = _one_host_function(fn, example)
    calls = []
    for arg in inputs if host is not None else ():
        seen = hostcall.call(host(arg))
        done = dict(output=seen.output, files=list(seen.files), events=list(seen.events), jax=bool(seen.jax))
        if seen.error is not None:
            calls.append(DirectCall(**done, error=seen.error))
            continue
        outs = tree_util.tree_leaves(seen.result)
        first = outs[0] if outs else None
        # a copy as it was returned: a later call may write into storage the host function keeps
        calls.append(DirectCall(**done, values=[np.array(o) for o in outs],
                                type=f"{type(first).__module__}.{type(first).__name__}"))
    return HostCalls(callbacks=count, calls=calls)


def call_result(value) -> CallResult:
    """What a call returned, as an records.CallResult: its class name, whether it is a
    jax.Array, its shape (None without a tuple of ints), the array if it is a jax or NumPy
    array (else None)."""
    import jax
    shape = getattr(value, "shape", None)
    shaped = isinstance(shape, tuple) and all(isinstance(n, (int, np.integer)) for n in shape)
    return CallResult(type=type(value).__name__, jax_array=isinstance(value, jax.Array),
                      shape=[int(n) for n in shape] if shaped else None,
                      value=value if isinstance(value, (jax.Array, np.ndarray)) else None)


def host_purity(fn: Callable, example, inputs: list, namespace: dict, larger=()) -> HostPurity:
    """Find the one callback of make_jaxpr(fn)(example), as host_calls does; call its host
    function directly on each of `inputs`, then run fn and jax.jit(fn) on each input (as a
    jax array) as JAX runs them, each call of the host function observed on its own (see
    purity.Purity; pass __notebook__ as `namespace`). Returns an evidence.HostPurity: how many
    callback equations, an evidence.PurityCall per call in order (via "direct", "eager" or
    "jit"; the names of the state it changed, "(the host function)" for its own and a
    setting by its name; the names it added to or removed from the working folder; its
    output, files, events, error), and the direct calls' outputs as arrays (None: it raised).
    Failures of fn and jit(fn) themselves are the other tests' business and ignored. The two
    worlds' comparison calls it on every NumPy input twice and on each of `larger` (a large
    input, inputs of several lengths: where a branch inside it could start an effect)."""
    import jax
    import jax.numpy as jnp
    from jax import tree_util

    count, host = _one_host_function(fn, example)
    if host is None:
        return HostPurity(callbacks=count, calls=[], values=[])
    purity, values = Purity(namespace), []
    for arg in inputs:
        seen = purity.call(host.student, host(arg), "direct", given=[arg])
        values.append(None if seen.error is not None else [np.asarray(o).copy() for o in tree_util.tree_leaves(seen.result)])
    for via, run in (("eager", fn), ("jit", jax.jit(fn))):
        with flat_callback_calls(purity.observed(via)):
            for arg in inputs:
                try:
                    jax.block_until_ready(run(jnp.asarray(arg)))
                    jax.effects_barrier()
                except Exception:  # failures of these calls are the other tests' business
                    pass
    writable_and_read_only(purity, host, inputs)
    # what the rest of the program could observe: every NumPy input twice, as JAX hands them
    # over, then the larger ones
    purity.worlds([host(a) for a in [*inputs, *inputs, *larger] if isinstance(a, np.ndarray)], [host.student])
    return HostPurity(callbacks=count, calls=purity.calls, values=values)
