"""pure_callback_doubler's observations, run where the student's code runs: what a call
returned, and the one host function called directly and as JAX calls it, each call observed
on its own (its output, files, processes, and the state it changed). Exposed to the tests'
questions as `witness`."""
from __future__ import annotations

import functools
import os
from collections.abc import Callable

import numpy as np

from autograder.shared.evidence import CallResult, DirectCall, HostCall, HostCalls, HostPurity, PurityCall
from autograder.witness import fingerprint, hostcall, inspection, reachable
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
    (autograder.witness.hostcall): an evidence.HostCalls, how many callback equations and
    per input an evidence.DirectCall (every output as an array and the first one's class,
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
        calls.append(DirectCall(**done, values=[np.asarray(o) for o in outs],
                                type=f"{type(first).__module__}.{type(first).__name__}"))
    return HostCalls(callbacks=count, calls=calls)


def call_result(value) -> CallResult:
    """What a call returned, as an evidence.CallResult: its class name, whether it is a
    jax.Array, its shape (None without a tuple of ints), the array if it is a jax or NumPy
    array (else None)."""
    import jax
    shape = getattr(value, "shape", None)
    shaped = isinstance(shape, tuple) and all(isinstance(n, (int, np.integer)) for n in shape)
    return CallResult(type=type(value).__name__, jax_array=isinstance(value, jax.Array),
                      shape=[int(n) for n in shape] if shaped else None,
                      value=value if isinstance(value, (jax.Array, np.ndarray)) else None)


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


def _state(namespace: dict, student, whole: bool) -> tuple[dict, set]:
    """A deep fingerprint (autograder.witness.fingerprint) of the host function itself (its
    attributes, closure, defaults and, for a callable object, its class), of the state its
    code can reach (autograder.witness.reachable: the globals it names, in the notebook or in
    a module it wrote, transitively; every notebook global, private ones such as `_CACHE`
    too, when `whole` or when its code reaches state by text), and of the process-wide
    settings, by name; and the code objects of that reach."""
    digests, codes = reachable.fingerprints(student, namespace, whole)
    digests.update({name: fingerprint.fingerprint(value) for name, value in _settings().items()})
    return digests, codes


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
        self.whole = False   # every global from now on: student code outside the reach ran

    def call(self, student, bound, via: str) -> HostCall:
        saved = np.geterr(), np.get_printoptions()
        np.seterr(**_NUMPY_BASELINE[0])
        np.set_printoptions(**_NUMPY_BASELINE[1])
        try:
            (before, codes), folder = _state(self.namespace, student, self.whole), set(os.listdir("."))
            seen = hostcall.call(bound)
            (after, _), folder_after = _state(self.namespace, student, self.whole), set(os.listdir("."))
            # The student's code that ran and that the reach did not find (a logging handler, a
            # tracer, a registry's callback): the next calls are judged on every global.
            self.whole = self.whole or any(c not in codes and reachable.student_file(c.co_filename)
                                           for c in seen.codes)
        finally:
            np.seterr(**saved[0])
            np.set_printoptions(**saved[1])
        self.calls.append(PurityCall(
            via=via, output=seen.output, files=list(seen.files), events=list(seen.events),
            changed=sorted(n for n in before if n in after and before[n] != after[n]),
            added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after)),
            files_added=sorted(folder_after - folder), files_removed=sorted(folder - folder_after),
            error=seen.error))
        return seen

    def observed(self, via: str):
        """A replacement of JAX's _FlatCallback.__call__ (see observe.flat_callback_calls) through
        which every host callback JAX runs is observed as above."""
        from jax import tree_util

        def observed(flat, *flat_args):
            args, kwargs = tree_util.tree_unflatten(flat.in_tree, flat_args)
            seen = self.call(flat.callback_func, functools.partial(flat.callback_func, *args, **kwargs), via)
            if seen.error is not None:
                raise RuntimeError(seen.error)
            return tree_util.tree_leaves(seen.result)
        return observed


def host_purity(fn: Callable, example, inputs: list, namespace: dict) -> HostPurity:
    """Find the one callback of make_jaxpr(fn)(example), as host_calls does; call its host
    function directly on each of `inputs`, then run fn and jax.jit(fn) on each input (as a
    jax array) as JAX runs them, each call of the host function observed on its own (see
    _Purity; pass __notebook__ as `namespace`). Returns an evidence.HostPurity: how many
    callback equations, an evidence.PurityCall per call in order (via "direct", "eager" or
    "jit"; the names of the state it changed, "(the host function)" for its own and a
    setting by its name; the names it added to or removed from the working folder; its
    output, files, events, error), and the direct calls' outputs as arrays (None: it raised).
    Failures of fn and jit(fn) themselves are the other tests' business and ignored."""
    import jax
    import jax.numpy as jnp
    from jax import tree_util

    count, host = _one_host_function(fn, example)
    if host is None:
        return HostPurity(callbacks=count, calls=[], values=[])
    purity, values = _Purity(namespace), []
    for arg in inputs:
        seen = purity.call(host.student, host(arg), "direct")
        values.append(None if seen.error is not None else [np.asarray(o) for o in tree_util.tree_leaves(seen.result)])
    for via, run in (("eager", fn), ("jit", jax.jit(fn))):
        with flat_callback_calls(purity.observed(via)):
            for arg in inputs:
                try:
                    jax.block_until_ready(run(jnp.asarray(arg)))
                    jax.effects_barrier()
                except Exception:  # failures of these calls are the other tests' business
                    pass
    return HostPurity(callbacks=count, calls=purity.calls, values=values)
