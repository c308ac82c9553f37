"""Programs handed over to the grader's executor, and their host callbacks served for it.

Runs where the student's code runs. `program(fn, *args)` lowers `jax.jit(fn)` on the
grader's inputs and hands over only data: the StableHLO text, which exported function each
FFI target was registered from (provenance.bindings) and an id under which this process
keeps the program's host callbacks. The executor (autograder/executor/program.py) runs the
program itself; each time its run reaches a host callback (custom_call
xla_ffi_python_cpu_callback, `index` = its position in the program's host callbacks), the
runner asks `serve(id, index, operands)` here and hands the result back to the executor,
which checks it against the shapes and dtypes the program declares.

What is served is JAX's own wrapper of the student's host function, called on the
operands the executor's run produced: exactly what XLA would call in this process.
"""
from __future__ import annotations

import itertools
from collections import OrderedDict

import jax
import numpy as np

from autograder.witness import provenance

_KEEP = 64   # programs whose callbacks stay servable (a test hands over a few at a time)
_programs: OrderedDict[int, list] = OrderedDict()
_ids = itertools.count(1)


def program(fn, *args) -> list:
    """[StableHLO text of jax.jit(fn).lower(*args), provenance.bindings(), the id of its
    host callbacks here]."""
    lowered = jax.jit(fn).lower(*args)
    callbacks = list(lowered._lowering.compile_args.get("host_callbacks") or ())   # jax's, per module
    pid = next(_ids)
    _programs[pid] = callbacks
    while len(_programs) > _KEEP:
        _programs.popitem(last=False)
    return [lowered.as_text(), provenance.bindings(), pid]


def serve(pid: int, index: int, operands: list, replace: tuple[str, ...] = ()) -> list[np.ndarray]:
    """The results of host callback `index` of program `pid` on `operands`, with each
    dotted name of `replace` (scipy.special.gammaln) poisoned wherever it is referenced
    (provenance.replaced), as NumPy arrays."""
    callback = _programs[pid][index]
    with _replacing(list(replace)):
        results = callback(*[np.asarray(o) for o in operands])
    return [np.asarray(r) for r in results]


def _replacing(names: list[str]):
    import contextlib
    stack = contextlib.ExitStack()
    for dotted in names:
        stack.enter_context(provenance.replaced(provenance._resolve(dotted), provenance._poison_function))
    return stack
