"""gammaln_callback's observations, run where the student's code runs: every host callback
of a program with its host function called once on operands like the grader's input, and
the program run eagerly with a SciPy function poisoned wherever it is referenced. Exposed
to the tests' questions as `witness`."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from autograder.witness import hostcall, inspection
from autograder.witness.observe import student_call


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
        seen = hostcall.call(student_call(eqn.params["callback"], *operands))
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
