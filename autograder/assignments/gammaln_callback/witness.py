"""gammaln_callback's observations, run where the student's code runs: every host callback
of a program with its host function called once on operands like the grader's input, and
the program run eagerly with a SciPy function poisoned wherever it is referenced. Exposed
to the tests' questions as `witness`."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

# imported with this module, before any student code runs: its baseline of the settings it
# puts back before each observed call (np.seterr, ...) is the process's own, not the notebook's
from autograder.witness.purity import Purity, writable_and_read_only
from autograder.shared.evidence import HostArray, HostFunction, HostPurity, Report, Run
from autograder.witness import hostcall, inspection
from autograder.witness.observe import student_call


def _operand_like(aval, example: np.ndarray) -> np.ndarray:
    """A NumPy array shaped and typed like a callback operand: `example`'s values when the
    sizes agree (the operand is the input, reshaped or copied), else values from 0.5 to 5."""
    shape, dtype = tuple(aval.shape), np.dtype(aval.dtype)
    size = int(np.prod(shape, dtype=np.int64))
    values = example.ravel() if example.size == size else np.linspace(0.5, 5.0, size)
    return np.array(values.reshape(shape), dtype=dtype)   # a copy, C-ordered, 0-d kept


def _callbacks(fn: Callable, example: np.ndarray):
    """(equation, operands) of every pure_callback and io_callback equation of
    make_jaxpr(fn)(example), in walk order: the operands are NumPy arrays shaped and typed
    like the equation's (_operand_like)."""
    for eqn in inspection.iter_eqns(inspection.make_jaxpr(fn, example)):
        if eqn.primitive in (inspection.pure_callback_p, inspection.io_callback_p):
            yield eqn, [_operand_like(v.aval, example) for v in eqn.invars]


def host_functions(fn: Callable, example) -> list[HostFunction]:
    """Every pure_callback and io_callback equation of make_jaxpr(fn)(example), in walk
    order, with its host function (the student's own function; JAX's flattening wrapper is
    left out) called once, directly and observed from below Python (autograder.witness.hostcall),
    on NumPy arrays shaped and typed like its operands (`example`'s values when the sizes
    agree): one evidence.HostFunction each (what it declares, what it returned or the error
    it raised, whether JAX code ran inside it, its output, files and events)."""
    from jax import tree_util
    example = np.asarray(example)
    report = []
    for eqn, operands in _callbacks(fn, example):
        host, avals = eqn.params["callback"], eqn.params["result_avals"]   # JAX's equation params (not evidence)
        seen = hostcall.call(student_call(host, *operands))
        returned = None if seen.error is not None else [
            HostArray([int(n) for n in np.shape(o)], str(np.asarray(o).dtype), type(o).__name__)
            for o in tree_util.tree_leaves(seen.result)]
        report.append(HostFunction(
            primitive="pure_callback" if eqn.primitive is inspection.pure_callback_p else "io_callback",
            declared=[HostArray([int(n) for n in a.shape], str(np.dtype(a.dtype))) for a in avals],
            returned=returned, jax=bool(seen.jax), output=seen.output, files=list(seen.files),
            events=list(seen.events), error=seen.error))
    return report


def host_purity(fns: list, example, namespace: dict) -> HostPurity:
    """Every host function of the callback equations of make_jaxpr(fn)(example), for each
    of `fns`, judged as pure_callback_doubler's are (autograder/witness/purity.py: each call observed
    on its own, its output at file-descriptor level, the files it opened, created or removed,
    the files held open it wrote to, the processes and sockets it started, the state it
    changed, reachable from it or process-wide, the arrays it was given): each distinct host
    function called directly on operands like `example`, then, with one operand, twice on
    one writable array, once on a read-only copy and once on other values (writable_and_read_only).
    Pass __notebook__ as `namespace`. An evidence.HostPurity (its values are left empty)."""
    example = np.asarray(example)
    purity, done, count = Purity(namespace), [], 0
    for fn in fns:
        for eqn, operands in _callbacks(fn, example):
            count += 1
            flat = eqn.params["callback"]   # JAX's equation params (not evidence)
            student = flat.callback_func
            if any(student is d for d in done):
                continue
            done.append(student)
            purity.call(student, student_call(flat, *operands), "direct", given=operands)
            if len(operands) == 1:
                host = functools.partial(student_call, flat)
                host.student = student
                writable_and_read_only(purity, host, operands)
    return HostPurity(callbacks=count, calls=purity.calls, values=[])


def eager_replaced(fn: Callable, *args, replace: tuple[str, ...] = ()) -> Report:
    """`fn(*args)` run eagerly (no jit), as it is and with each dotted name of `replace`
    poisoned wherever it is referenced (autograder.witness.substitute.poisoned): an
    evidence.Report whose poisoned[name] is that run, as observe.eager_trace's is for the
    host callbacks."""
    import jax

    from autograder.witness import substitute

    def run() -> list[np.ndarray]:
        return [np.asarray(leaf) for leaf in jax.tree.leaves(jax.block_until_ready(fn(*args)))]

    value = run()
    size = max((a.size for a in value), default=0)
    poisoned = {}
    keys = substitute.keys_of(args)   # keyed: SciPy's real values but on the grader's input
    for dotted in replace:
        with substitute.poisoned(dotted, keys):
            poisoned[dotted] = Run(run(), [int(size)])
    return Report(calls=[], value=value, poisoned=poisoned, opcodes=[])
