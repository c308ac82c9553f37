"""A host function's calls observed each on its own, for the exercises whose task says their
host functions are pure (pure_callback_doubler, gammaln_callback): its output at the
file-descriptor level, the files it opened, the processes and sockets it started, what it
did to files held open (hostcall.call), and the state it changed (a deep snapshot of what it
can reach and of the process-wide settings, the working and temp folders, the arrays it was
given, its earlier results). Runs where the student's code runs; imported by the exercises'
witness modules before any student code runs, so its baseline of the settings it puts back
before each call is the process's own (see _BASELINE)."""
from __future__ import annotations

import dataclasses
import functools
import os

import numpy as np

from autograder.shared.evidence import HostCall, PurityCall
from autograder.witness import fingerprint, hostcall, reachable


_FILTERS = "the warning filters (warnings.simplefilter)"


def _random_state(state: tuple):
    """random.getstate() with its 625 ints as one array: a fingerprint reads it at once."""
    version, words, gauss = state
    return version, np.array(words, np.uint64), gauss


def _settings() -> dict:
    """The process-wide settings a host function could change, by the name the student reads:
    NumPy's whole configuration, Python's random, warnings and logging, the environment, the
    working directory, sys's settable state, and a few more."""
    import gc
    import locale
    import logging
    import random
    import socket
    import sys
    import warnings

    jax = sys.modules.get("jax")   # never imported here: a fork's two worlds would hold two copies
    loggers = [logging.root, *(v for v in list(logging.root.manager.loggerDict.values())
                               if isinstance(v, logging.Logger))]
    return {"NumPy's error state (np.seterr)": [np.geterr(), np.geterrcall()],
            "NumPy's print options (np.set_printoptions)": np.get_printoptions(),
            "NumPy's buffer size (np.setbufsize)": np.getbufsize(),
            "NumPy's global random state (np.random.seed)": np.random.get_state(),
            "Python's random state (random.seed)": _random_state(random.getstate()),
            "JAX's configuration (jax.config.update)": repr(dict(jax.config.values)) if jax else "",
            "the environment (os.environ)": dict(os.environ),
            "the working directory (os.chdir)": os.getcwd(),
            "the import path (sys.path)": list(sys.path),
            "the import system (sys.meta_path, sys.path_hooks)": [id(h) for h in (*sys.meta_path, *sys.path_hooks)],
            _FILTERS: list(warnings.filters),
            "the warning display (warnings.showwarning)": id(warnings.showwarning),
            "logging's configuration (logging.basicConfig, setLevel, addHandler)": repr([   # one string: cheap
                logging.root.manager.disable,
                *((lg.name, lg.level, lg.disabled, lg.propagate, [id(h) for h in lg.handlers],
                   [id(f) for f in lg.filters]) for lg in loggers),
                *((id(h), h.level, [id(f) for f in h.filters]) for lg in loggers for h in lg.handlers)]),
            "sys's settings (recursion limit, switch interval, int digits, hooks)": [
                sys.getrecursionlimit(), sys.getswitchinterval(), sys.get_int_max_str_digits(),
                sys.getdlopenflags(), sys.dont_write_bytecode, id(sys.displayhook), id(sys.excepthook),
                id(sys.breakpointhook), id(sys.unraisablehook), id(sys.getprofile()), id(sys.gettrace())],
            "the garbage collector (gc.disable, gc.set_threshold)": [gc.isenabled(), gc.get_threshold()],
            "the locale (locale.setlocale)": locale.setlocale(locale.LC_ALL),
            "the socket timeout (socket.setdefaulttimeout)": socket.getdefaulttimeout(),
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


# The process-wide settings the grader can put back, as they were before any student code ran
# (the witness imports this module first): each observed call starts from them, so a host
# function that sets them is seen doing so on every call, not only the first one of the grading.
def _resettable():
    """The settings put back to their baseline before each observed call: NumPy's error state,
    print options and buffer size, the root logger's level and logging.disable's level."""
    import logging
    return np.geterr(), np.get_printoptions(), np.getbufsize(), logging.root.level, logging.root.manager.disable


def _reset(values) -> None:
    import logging
    np.seterr(**values[0])
    np.set_printoptions(**values[1])
    np.setbufsize(values[2])
    # only when they differ: setting either clears every logger's cache of enabled levels
    if logging.root.level != values[3]:
        logging.root.setLevel(values[3])
    if logging.root.manager.disable != values[4]:
        logging.disable(values[4])


_BASELINE = _resettable()


def _leaves(result) -> list:
    from jax import tree_util
    return tree_util.tree_leaves(result)


# The two-worlds record of each set of host functions, by their ids (the functions kept, so
# that an id stays theirs): the comparison costs a second or two, and the purity tests of one
# grading ask about the same host functions more than once.
_WORLDS: dict[tuple, tuple[list, PurityCall]] = {}


class Purity:
    """Each call of a host function observed on its own: its output at file-descriptor
    level, the files it opened, the processes and sockets it started, what it did to the
    files held open (hostcall.call), and what it changed (a deep snapshot of the state, the
    working and temp folders, and the NumPy arrays it was given, just before and just after
    that call). Its results are kept with a copy: an earlier result that a later call
    changes (a shared output buffer) is an effect of the later calls. What happens between
    calls (the wrapper tracing, JAX compiling) is not the host function's and is not seen."""

    def __init__(self, namespace: dict):
        self.namespace, self.calls = namespace, []
        self.whole = False   # every global from now on: student code outside the reach ran
        self.kept: list[tuple[int, object, np.ndarray]] = []   # (call, a NumPy result, its copy)

    def call(self, student, bound, via: str, given=()) -> HostCall:
        saved = _resettable()
        _reset(_BASELINE)
        given = [(a, a.copy()) for a in given if isinstance(a, np.ndarray)]
        try:
            (before, codes), folder = _state(self.namespace, student, self.whole), hostcall.folders()
            seen = hostcall.call(bound, descriptors=True)
            (after, _), folder_after = _state(self.namespace, student, self.whole), hostcall.folders()
            # The student's code that ran and that the reach did not find (a logging handler, a
            # tracer, a registry's callback): the next calls are judged on every global.
            self.whole = self.whole or any(c not in codes and reachable.student_file(c.co_filename)
                                           for c in seen.codes)
        finally:
            _reset(saved)
        effects = [f"file descriptors: {d}" for d in seen.descriptors]
        effects += [f"arguments: changed the NumPy array it was given (shape {a.shape}): a pure callback must not "
                    "write into its argument" for a, copy in given
                    if not (a.shape == copy.shape and np.array_equal(a, copy, equal_nan=True))]
        added, removed = [], []
        for where, names_before in folder.items():
            now = folder_after.get(where, set())
            prefix = "" if where == "." else os.path.join(where, "")
            added += [prefix + n for n in sorted(now - names_before)]
            removed += [prefix + n for n in sorted(names_before - now)]
        index = len(self.calls)
        if seen.error is None:
            self.kept += [(index, leaf, leaf.copy()) for leaf in _leaves(seen.result) if isinstance(leaf, np.ndarray)]
        self.calls.append(PurityCall(
            via=via, output=seen.output, files=list(seen.files), events=list(seen.events),
            changed=sorted({n for n in before if n in after and before[n] != after[n]}
                           | ({_FILTERS} if seen.warning_filters else set())),
            added=sorted(set(after) - set(before)), removed=sorted(set(before) - set(after)),
            files_added=added, files_removed=removed, error=seen.error, effects=effects))
        self._earlier_results(index)
        return seen

    def _earlier_results(self, index: int) -> None:
        """A result of an earlier call that changed during call `index`: the host function
        hands back storage it keeps (a cache's or a decorator's shared output buffer)."""
        for i, (earlier, leaf, copy) in enumerate(self.kept):
            if earlier < index and not (leaf.shape == copy.shape and np.array_equal(leaf, copy, equal_nan=True)):
                self.effect(index, "results: changed the array an earlier call returned (it hands back storage "
                                   "it keeps, a cache's or a shared output buffer)")
                self.kept[i] = (earlier, leaf, leaf.copy())   # said once

    def worlds(self, calls, students) -> None:
        """`calls` (a host function bound to inputs) made in this process between two forks of
        it, one before and one after, which are compared (autograder/witness/worlds.py), recorded as one
        PurityCall via "worlds": what differs as `changed`, what landed on fds 1 and 2 as
        `output`; a comparison that could not be made as an effect. Only in the witness
        (worlds.ALONE), and once per grading for the host functions `students` (the
        student's own functions the calls make): a later question reuses the record."""
        from autograder.witness import worlds
        if not worlds.ALONE:
            return
        key = tuple(sorted(id(f) for f in students))
        if key not in _WORLDS:
            try:
                names, output = worlds.effects(calls)
                effects = []
            except RuntimeError as exc:
                names, output = [], ""
                effects = [f"comparison: could not be compared with a world where it did not run ({exc})"]
            _WORLDS[key] = (list(students), PurityCall(
                via="worlds", output=output, files=[], events=[], changed=names, added=[], removed=[],
                files_added=[], files_removed=[], effects=effects))
        self.calls.append(_WORLDS[key][1])

    def effect(self, index: int, effect: str) -> None:
        """Add `effect` to the call number `index`."""
        call = self.calls[index]
        self.calls[index] = dataclasses.replace(call, effects=[*call.effects, effect])

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


def writable_and_read_only(purity: Purity, host, inputs: list) -> None:
    """The host function called twice on one writable NumPy array (a copy of the first NumPy
    input) and once on a read-only copy: the argument must stay as it was (seen by
    Purity.call) and the three results must be equal; then once on other values of the same
    shape, after which no earlier result may have changed (Purity._earlier_results)."""
    first = next((a for a in inputs if isinstance(a, np.ndarray) and a.size), None)
    if first is None:
        return
    writable, read_only = first.copy(), first.copy()
    read_only.flags.writeable = False
    results = []
    for arg in (writable, writable, read_only):
        seen = purity.call(host.student, host(arg), "direct", given=[arg] if arg is writable else [])
        results.append(None if seen.error is not None else [np.asarray(o).copy() for o in _leaves(seen.result)])
    if not any(r is None for r in results) and not all(
            len(r) == len(results[0]) and all(p.shape == q.shape and np.array_equal(p, q, equal_nan=True)
                                              for p, q in zip(r, results[0])) for r in results[1:]):
        purity.effect(-1,
            "arguments: returned different results when called twice on the same writable array and once on a "
            "read-only copy")
    elif results[0] is not None and results[2] is None:
        purity.effect(-1,
            f"arguments: raised {purity.calls[-1].error} on a read-only array, which it must only read")
    with np.errstate(all="ignore"):
        other = np.negative(first) + np.float32(1)
    purity.call(host.student, host(other), "direct", given=[other])
