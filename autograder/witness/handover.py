"""Programs handed over to the grader's executor, and their host callbacks served for it.

Runs where the student's code runs. `program(fn, *args)` lowers `jax.jit(fn)` on the
grader's inputs and hands over only data: the StableHLO text, which exported function each
FFI target was registered from (registry.bindings) and an id under which this process
keeps the program's host callbacks. The executor (autograder/executor/program.py) runs the
program itself; each time its run reaches a host callback (custom_call
xla_ffi_python_cpu_callback, `index` = its position in the program's host callbacks), the
runner asks `serve(id, index, operands)` here and hands the result back to the executor,
which checks it against the shapes and dtypes the program declares.

What is served is JAX's own wrapper of the student's host function, called on the
operands the executor's run produced: exactly what XLA would call in this process. So that
a program reaching thousands of callbacks (a lax.map over elements) does not cost a round
trip through the runner for each, `program` also runs the program here once (and once per
host function to poison) and hands over the record of its callbacks' calls: the executor
serves a call from the record only where its own run reached the same callback with
exactly the same operands, and asks `serve` for any other.
"""
from __future__ import annotations

import contextlib
import itertools
import signal
import threading
from collections import OrderedDict
from copy import copy as _copy

import jax
import numpy as np

from autograder.shared import dataflow, errors
from autograder.shared.evidence import Handover, Lowered
from autograder.witness import registry, substitute

_KEEP = 64   # programs whose callbacks stay servable (a test hands over a few at a time)
_RECORD_BYTES = 16 << 20   # operands and results a record holds at most; later calls are served live
_programs: OrderedDict[int, list] = OrderedDict()
_ids = itertools.count(1)


def program(fn, *args, replace: tuple[str, ...] = ()) -> Handover:
    """The Handover of jax.jit(fn).lower(*args) (unused arguments kept: the grader passes all
    its inputs): its StableHLO text, registry.bindings(), the id of its host callbacks here,
    the record of their calls: [[context, [[index, operands, results], ...]], ...] for the
    program run here as it is (context -1) and with each name of `replace` poisoned (context i)."""
    lowered = jax.jit(fn, keep_unused=True).lower(*args)
    callbacks = list(lowered._lowering.compile_args.get("host_callbacks") or ())   # jax's, per module
    pid = next(_ids)
    _programs[pid] = callbacks
    while len(_programs) > _KEEP:
        _programs.popitem(last=False)
    records = []
    if callbacks:
        for context, names in [(-1, []), *((i, [name]) for i, name in enumerate(replace))]:
            with _replacing(names, substitute.keys_of(args) if names else None):
                records.append([context, _recorded(lowered, callbacks, args)])
    return Handover(lowered.as_text(), registry.bindings(), pid, records)


def lowered(fn, specs: list) -> list[Lowered]:
    """`jax.jit(fn)` lowered at each of `specs`, abstract shapes (a list of (shape, dtype) per
    argument: jax.ShapeDtypeStruct, nothing allocated or run), as StableHLO texts for the
    executor to read (op "structure"); a lowering that raises is handed over as its error."""
    out = []
    for spec in specs:
        shapes = [jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype)) for shape, dtype in spec]
        try:
            with _budget(LOWER_S):
                text = jax.jit(fn, keep_unused=True).lower(*shapes).as_text()
            out.append(Lowered(text) if len(text) <= dataflow.MAX_TEXT_BYTES else Lowered(
                "", f"the program is too large for the grader to read ({len(text) >> 20} MB of text, more than "
                    f"{dataflow.MAX_TEXT_BYTES >> 20} MB)"))
        except _OverBudget:
            out.append(Lowered("", f"the program took more than {LOWER_S:.0f} s to lower, longer than the grader "
                                   "gives one program"))
        except Exception as exc:  # the answer's code raised while tracing or lowering
            out.append(Lowered("", errors.describe(exc)))
    return out


LOWER_S = 5.0   # one lowering at abstract shapes (a pack of a hundred shapes takes ~0.1-2 s)


class _OverBudget(BaseException):   # not an Exception: the answer's `except Exception` does not stop it
    pass


@contextlib.contextmanager
def _budget(seconds: float):
    """Raise _OverBudget in this (the main) thread once `seconds` have passed; elsewhere, or
    under a timer already set, no budget (the runner's question limit still holds)."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_REAL)[0]:
        yield
        return

    def expire(signum, frame):
        raise _OverBudget
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _recorded(lowered, callbacks: list, args) -> list:
    """The calls of `callbacks` while `lowered`, compiled again with recording callbacks
    (the cached original untouched), runs on `args`; as far as it got if it failed."""
    calls, size = [], [0]

    def recording(index, callback):
        def call(*operands):
            results = callback(*operands)
            size[0] += sum(np.asarray(a).nbytes for a in (*operands, *results))
            if size[0] <= _RECORD_BYTES:
                calls.append([index, [np.array(o) for o in operands], [np.array(r) for r in results]])
            return results
        return call

    lowering = _copy(lowered._lowering)
    lowering.compile_args = {**lowering.compile_args,
                             "host_callbacks": [recording(i, c) for i, c in enumerate(callbacks)]}
    lowering._executable = None
    copy = _copy(lowered)
    copy._lowering = lowering
    try:
        jax.block_until_ready(copy.compile()(*args))
    except Exception:  # the host function raised: the executor's own run will say so, live
        pass
    return calls


def serve(pid: int, index: int, operands: list, replace: tuple[str, ...] = ()) -> list[np.ndarray]:
    """The results of host callback `index` of program `pid` on `operands`, with each
    dotted name of `replace` (scipy.special.gammaln) poisoned wherever it is referenced
    (substitute.poisoned), as NumPy arrays."""
    callback = _programs[pid][index]
    operands = [np.asarray(o) for o in operands]
    with _replacing(list(replace), substitute.keys_of(operands) if replace else None):
        results = callback(*operands)
    return [np.asarray(r) for r in results]


def _replacing(names: list[str], keys=None):
    """Each name poisoned; a ufunc keyed on `keys` (the callback's operands, the grader's
    input): SciPy's real values everywhere else, so that no self-test of the host function
    at a known point can tell (substitute.PoisonUfunc)."""
    stack = contextlib.ExitStack()
    for dotted in names:
        stack.enter_context(substitute.poisoned(dotted, keys))
    return stack
