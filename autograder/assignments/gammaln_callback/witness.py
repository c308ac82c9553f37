"""gammaln_callback's observations, run where the student's code runs: every host callback
of a program with its host function called once on operands like the grader's input (on a
huge input too, as it is and with a SciPy function poisoned, keyed on that input: its
values, host_values), and the program run eagerly with a SciPy function poisoned wherever it
is referenced. Exposed to the tests' questions as `witness`."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

# imported with this module, before any student code runs: its baseline of the settings it
# puts back before each observed call (np.seterr, ...) is the process's own, not the notebook's
from autograder.witness.purity import Purity, writable_and_read_only
from autograder.shared import poison
from autograder.assignments.gammaln_callback.records import HostArray, HostFunction
from autograder.shared.evidence import HostPurity, Report, Run
from autograder.assignments.gammaln_callback.records import HostValues, Unchanged
from autograder.witness import hostcall, inspection, substitute
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
    agree): one records.HostFunction each (what it declares, what it returned or the error
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


def host_purity(fns: list, example, namespace: dict, larger=()) -> HostPurity:
    """Every host function of the callback equations of make_jaxpr(fn)(example), for each
    of `fns`, judged as pure_callback_doubler's are (autograder/witness/purity.py: each call observed
    on its own, its output at file-descriptor level, the files it opened, created or removed,
    the files held open it wrote to, the processes and sockets it started, the state it
    changed, reachable from it or process-wide, the arrays it was given): each distinct host
    function called directly on operands like `example`, then, with one operand, twice on
    one writable array, once on a read-only copy and once on other values (writable_and_read_only).
    Pass __notebook__ as `namespace`. The two worlds' comparison also calls each host function
    of the trace at each example of `larger` (a million values: where a branch inside a host
    function could start an effect) on operands like it. An evidence.HostPurity (its values
    are left empty)."""
    example = np.asarray(example)
    purity, done, count, varied = Purity(namespace), [], 0, []
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
            varied += [student_call(flat, *(np.asarray(o) * k for o in operands)) for k in (1, -1, 0.5)]
    for big in larger:   # the host functions the trace at that size calls, on its values
        for fn in fns:
            for eqn, operands in _callbacks(fn, np.asarray(big)):
                flat = eqn.params["callback"]   # JAX's equation params (not evidence)
                varied.append(student_call(flat, *operands))
                if not any(flat.callback_func is d for d in done):
                    done.append(flat.callback_func)
    # what the rest of the program could observe: every host function, three calls each on varied operands
    purity.worlds(varied, done)
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


def _called(flat, operands: list) -> tuple[list | None, str | None]:
    """(the outputs as NumPy arrays, None) of the host function of `flat` (a callback
    equation's params["callback"]) called directly on copies of `operands`, or (None, the
    error it raised)."""
    from jax import tree_util

    from autograder.shared.errors import describe
    try:
        result = student_call(flat, *(o.copy() for o in operands))()
        return [np.asarray(o) for o in tree_util.tree_leaves(result)], None
    except Exception as exc:   # student code; anything else ends the question
        return None, describe(exc)


def _unchanged(clean: list | None, poisoned: list | None) -> list:
    """Per output of `clean`: where the poisoned call's output equals it (NaN equal to NaN,
    poison.changed), as a records.Unchanged (flat indices, the poisoned values there); None where
    the poisoned call gave no output of that size. Only the entries that did not change
    travel (the grader judges them: poison.covered), not two copies of a million values."""
    found = []
    for j, out in enumerate(clean or ()):
        other = poisoned[j] if poisoned is not None and j < len(poisoned) else None
        if other is None or np.size(other) != np.size(out):
            found.append(None)
            continue
        out, other = np.ravel(out), np.ravel(other)
        if out.dtype.kind == "f" and other.dtype.kind == "f":   # poison.changed, without two float64 copies
            same = out == other
            same |= np.isnan(out) & np.isnan(other)
        else:
            same = ~poison.changed(out, other)
        at = np.flatnonzero(same)
        found.append(Unchanged(at, other[at]))
    return found


def host_values(fn: Callable, example, replace: str = "", keep=None) -> list:
    """Every pure_callback and io_callback equation of make_jaxpr(fn)(example), in walk order
    (only those whose index is in `keep`, when given; None for the others), with its host
    function called directly on operands like its own (`example`'s values when the sizes
    agree, see _operand_like): observed from below Python (hostcall.call: its output is
    captured, not printed), and, with `replace` (a dotted name, scipy.special.gammaln), once
    more with that function poisoned wherever the answer references it, keyed on `example`'s
    values (substitute.PoisonUfunc: SciPy's real values anywhere else, so a self-test at a
    point of the host function's own choosing cannot tell). One records.HostValues per
    equation: its operands' shapes, whether each holds `example`'s values, the outputs whole
    (the grader compares them element by element) or the error; with `replace`, what the
    poisoned call raised and, per output, the elements it left as they were (_unchanged)."""
    example = np.asarray(example)
    keys = substitute.keys_of([example]) if replace else None
    found = []
    for i, (eqn, operands) in enumerate(_callbacks(fn, example)):
        if keep is not None and i not in keep:
            found.append(None)
            continue
        flat = eqn.params["callback"]   # JAX's equation params (not evidence)
        seen = hostcall.call(lambda: _called(flat, operands))
        values, error = seen.result if seen.error is None else (None, seen.error)
        poisoned_error, unchanged = None, []
        if replace:
            original = substitute.resolve(replace)
            with substitute.replaced(original, substitute.PoisonUfunc(original, keys)):
                poisoned, poisoned_error = _called(flat, operands)
            unchanged = _unchanged(values, poisoned)
            del poisoned
        found.append(HostValues([list(o.shape) for o in operands], [o.size == example.size for o in operands],
                                values, error, poisoned_error, unchanged))
    return found
