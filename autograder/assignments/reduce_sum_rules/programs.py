"""reduce_sum_rules' verdicts from the grader's run of a program (the executor's half of the
kit; autograder.assignments.reduce_sum_rules.grader re-exports it).

While the tests ask, custom_reduce_sum_p lowers to the grader's kernel (kernels/reduce_sum.py,
installed in the student's process by the kit's `given_primitive`), so every place an
answer binds the primitive is a custom_call to TARGET in the compiled program, its `axis`
attribute the axes it sums. A test hands the program of its path over (probe.Ask.program):
the executor, a process of the grader's without student Python, reads its custom_calls and
runs it on the grader's inputs, as it is and with the kernel's custom_calls poisoned
(kernels/poison.cc). What the witness reports about the rules (their tables, the rule
poisons) could be forged by a cell that takes over its pipes; these verdicts come from the
program itself: its values, their dependence on the kernel, the axes of every call.
"""
import numpy as np

from autograder.shared import checks, evidence, gates, poison

TARGET = "__grader_reduce_sum__"   # kernels/reduce_sum.py's FFI target
ONLY = "compute only with custom_reduce_sum_p, jnp and lax"

# What every program a test grades must be before its values count.
PROGRAM = (
    gates.OnlyTargets("The compiled program of {what} calls the FFI target {others}; " + ONLY + ".",
                      allowed=frozenset({TARGET})),
    gates.RAN,
    gates.NotFromHostCallback(
        "The values of {what} come from a host callback (pure_callback or io_callback) in its compiled "
        "program; " + ONLY + "."),
)


def program(ask, fn, args, *, what, hint, each=False, kernels=True, **inputs):
    """The executor's report of jax.jit(fn) on the inputs named by `args` (`fn`: expression
    text), once it ran, calls no FFI target but the kernel and computes nothing with a host
    callback (a jax.debug.print that changes no value is fine). Its values are fn's flat
    outputs, then the inputs: returned as they are, so that jax.jit keeps an input no output
    needs (the primal point of a linear path) and the program takes the grader's inputs.
    `kernels=False`: the kernel's calls not poisoned (a run that judges only the values)."""
    keep = f"(lambda *v: (*jax.tree.leaves({fn}(*v)), *v))"
    report = ask.program(keep, *args, what=what, hint=hint, each=each, kernels=kernels, **inputs)
    return gates.check(report, PROGRAM, what=what)


def summed(shape, axis):
    """How many entries the sum over `axis` of an operand of `shape` adds for each result."""
    return int(np.prod([shape[a] for a in axis], dtype=np.int64))


def sums_program(ask, fn, args, sums, *, what, hint, each=None, **inputs):
    """`program`, whose outputs `sums` [(index, name, float64 reference, entries summed for
    each result)] are sums the task says come from the primitive (`expect_sums`). Its calls
    are poisoned one at a time (`each`, to tell which calls feed which output) when the sums
    add different counts, or when other outputs may bind the primitive too (a tangent)."""
    each = len({n for *_, n in sums}) > 1 if each is None else each
    report = program(ask, fn, args, what=what, hint=hint, each=each, **inputs)
    expect_sums(report, sums, what=what, hint=hint)
    return report


def sums_by_count(ask, args, sums, *, what, hint, **inputs):
    """`sums` [(name, expression of the inputs named by `args`, float64 reference, entries
    summed for each result)] checked as sums_program does, in one program per count: there
    every call must add that count, so none is poisoned alone (each such run compiles the
    program again)."""
    counts = {}
    for name, expr, want, n in sums:
        counts.setdefault(n, []).append((name, expr, want))
    for n, group in counts.items():
        sums_program(ask, f"(lambda {', '.join(args)}: ({', '.join(e for _, e, _ in group)},))", args,
                     [(i, name, want, n) for i, (name, _, want) in enumerate(group)], what=what, hint=hint, **inputs)


def expect_values(report, paths, *, hint, **tol):
    """Each output (index, name, float64 reference) of the grader's run is close to its
    reference (`tol`: checks.expect_close's rtol and atol)."""
    for i, name, want in paths:
        checks.expect_close(report.value[i], want, what=f"{name.rstrip(',')}, as the grader ran its compiled program,",
                            hint=hint, **tol)


def expect_from_kernel(report, outputs, *, what, hint):
    """Every entry of the chosen outputs changes when the kernel's custom_calls are
    poisoned: the value of a sum they need was computed by binding the primitive."""
    checks.expect_depends(report.only(outputs, evidence.FFI), evidence.FFI, message=(
        f"In the grader's run of the compiled program of {what}, the values do not come from "
        f"custom_reduce_sum_p (a custom_call to the grader's kernel there): with the kernel's output "
        f"replaced, they did not change everywhere; {hint}"))


def expect_sums(report, sums, *, what, hint, axes=True):
    """The outputs `sums` (see sums_program) are close to their references, depend on the
    kernel in every entry, are its output as it leaves the custom_call (only moved: no
    jnp.sum after it, nothing blended in), and (with `axes`) every call that feeds one sums
    over its operand exactly the entries the task's sum adds (its axes, read from its
    attribute)."""
    expect_values(report, [(i, name, want) for i, name, want, _ in sums], hint=hint, atol=1e-5)
    outputs = [i for i, *_ in sums]
    expect_from_kernel(report, outputs, what=what, hint=hint)
    checks.expect_straight(report.only(outputs, evidence.FFI), evidence.FFI, message=(
        f"In the grader's run of the compiled program of {what}, the values are not custom_reduce_sum_p's "
        f"own sums: something is computed after it is bound (only moving data may follow the bind); {hint}"))
    for i, name, _, n in sums if axes else ():
        for k in _feeding(report, i):
            call = report.calls[k]
            shape, axis = _operand_shape(call), _axis(call)
            checks.expect(summed(shape, axis) == n, (
                f"In the compiled program of {what}, {name} binds custom_reduce_sum_p over axis {axis} of an "
                f"operand of shape {shape}, adding {summed(shape, axis)} entries for each result where the "
                f"sum adds {n}; {hint}."))


def _feeding(report, output):
    """The kernel's calls that output `output` depends on: those that change it when poisoned
    alone (Ask.program's each=True), or every call when they were not poisoned one by one."""
    calls = [k for k, c in enumerate(report.calls) if c.target == TARGET]
    if not any(evidence.call_piece(k) in report.poisoned for k in calls):
        return calls
    clean = report.value[output]
    return [k for k in calls if report.has(evidence.call_piece(k))
            and np.any(poison.changed(clean, report.run(evidence.call_piece(k)).outputs[output]))]


def _operand_shape(call) -> tuple:
    """'tensor<2x3x4xf32>' -> (2, 3, 4): the shape of the call's operand."""
    return evidence.dims(call.operand_types[0])


def _axis(call) -> tuple:
    """The axes the call sums: its `axis` attribute (an i64 array)."""
    value = call.attribute("axis")
    return tuple(int(a) for a in np.ravel(value)) if isinstance(value, np.ndarray) else ()
