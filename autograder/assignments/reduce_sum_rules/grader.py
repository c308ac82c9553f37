"""What the tests of reduce_sum_rules share: the check that `custom_reduce_sum_p` is the
given primitive, the poison comparison (`depends`, `weights`), float64 sums and their
transposes, the expression builders of `witness.rule_dependence`, and the value-and-poison
checks that the JVP, transpose and batching tests repeat over their own inputs and axes.

The poison (autograder.assignments.reduce_sum_rules.witness) swaps one piece (the JVP, transpose or batching
rule, or the primitive's own impl/lowering) for the same sum with every operand entry
weighted by `weights(shape)`; the `*_weighted_*` references below are its results.
Which inputs and axes a test uses stays in its cell.

Those observations run in the student's process. Every test also grades the program of
its path as the grader runs it (the executor): `given_primitive` makes the primitive lower
to the grader's kernel, and the verdicts of reduce_sum_programs (re-exported here) read and
poison that program.
"""
import numpy as np

from autograder.shared import checks, poison
from autograder.assignments.reduce_sum_rules.programs import (  # noqa: F401  (the executor's half)
    TARGET, expect_from_kernel, expect_sums, expect_values, program, summed, sums_by_count, sums_program)
from autograder.assignments.reduce_sum_rules.every_shape import (  # noqa: F401  (every shape, lowered)
    expect_paths, jvp_path, primitive_path, transpose_path, vmap_path)
from autograder.assignments.reduce_sum_rules import EXERCISE
from autograder.assignments.reduce_sum_rules import records  # noqa: F401  (its records decode in this process)

case = EXERCISE.case   # the test cells' ritual: with kit.case(env, concept=...) as ask:

# The hints the cells repeat, word for word.
GIVEN = "run the given cell unchanged"
KEEP_GIVEN = "keep the given custom_reduce_sum, which binds custom_reduce_sum_p"
KEEP_RULE = "keep custom_reduce_sum binding custom_reduce_sum_p and register the rule on that primitive"
KEEP_RULES = "keep custom_reduce_sum binding custom_reduce_sum_p and register the rules on that primitive"
PRIMAL_BINDS = "your JVP rule must return custom_reduce_sum_p.bind(x, axis=axis) as its primal output"
BATCH_AXIS = ("axis must shift with the batch dimension, and the rule must return where the output "
              "batch dimension is")
BATCH_BINDS = ("the batching rule must bind custom_reduce_sum_p on the batched operand, not compute "
               "the sum another way")

_WHERE = {"jvp": "your JVP rule in ad.primitive_jvps[custom_reduce_sum_p]",
          "transpose": "your transpose rule in ad.primitive_transposes[custom_reduce_sum_p]",
          "batching": "your batching rule in batching.primitive_batchers[custom_reduce_sum_p]",
          "primitive": "custom_reduce_sum_p (its given implementation)"}
_JIT = ("", " under jax.jit")   # output 0 of a pair is eager, output 1 under jax.jit


def given_primitive(ask, x, axis):
    """Check that custom_reduce_sum_p is the given, untouched Primitive (named
    custom_reduce_sum, its instance setting only abstract_eval, impl and name) and that
    custom_reduce_sum(x, axis) binds it; return `witness.primitive_state` of it on x. From
    then on the primitive lowers to the grader's kernel in the student's process."""
    state, binds = ask.run(
        f"witness.given_primitive(custom_reduce_sum_p, custom_reduce_sum, x, {axis!r})",
        x=x, what="Looking at custom_reduce_sum_p", hint="run the given cell unchanged")
    extra = sorted(set(state.attributes) - {"abstract_eval", "impl", "name"})
    checks.expect(state.plain and not extra and state.name == "custom_reduce_sum", (
        "custom_reduce_sum_p is not the given, untouched jax.extend.core.Primitive named custom_reduce_sum ("
        + (f"it is a {state.type}" if not state.plain else
           f"its instance sets {', '.join(extra)}" if extra else f"it is named {state.name!r}")
        + "); run the given cell unchanged and only register rules in JAX's tables."))
    checks.expect(binds >= 1, (
        "custom_reduce_sum no longer binds custom_reduce_sum_p; keep the given function and "
        "give the primitive its rules instead of computing the sum another way."))
    return state


def depends(rep, piece, outputs, what, hint, wants=None):
    """Every entry of the chosen outputs of `rep` (a `witness.rule_dependence` report) changed
    when `piece` was swapped for a poison; where the poisoned result is known (`wants`,
    float64, zipped with `outputs`), it must be that result: nothing else computed it."""
    where = _WHERE[piece]
    message = f"The values of {what} do not come from {where}: swapping it for a poison did not change every value; {hint}"
    got = rep.run(piece)
    checks.expect(got is not None, f"{message} (with it swapped, your code raised {rep.errors.get(piece)}).")
    outputs = list(outputs)
    checks.expect_depends(rep.only(outputs, piece), piece, message=message)
    for i, want in zip(outputs, wants or ()):   # float32 against float64: within 1e-4 of the largest value
        value = np.asarray(got.outputs[i], np.float64)
        close = value.shape == want.shape and np.isclose(value, want, rtol=1e-4,
                                                         atol=checks.normwise(want, 1e-4, 1e-4))
        checks.expect(np.all(close), (
            f"The values of {what} do not come from {where} alone: with it swapped for a poison, "
            f"{np.size(want) - np.count_nonzero(close)} of {np.size(want)} values are not the poison's own "
            f"result, so something else computes them; {hint}."))


def weights(shape):
    """The poison's weights for an operand of this shape (autograder.assignments.reduce_sum_rules.witness):
    2 * poison.values, in float64."""
    return 2.0 * poison.values(int(np.prod(shape))).reshape(shape).astype(np.float64)


# ------------------------------------------------------------ float64 references ----------

def sum64(x, axis):
    """The sum of x over axis, in float64."""
    return x.astype(np.float64).sum(axis)


def weighted_sum64(x, axis):
    """What the poison computes for sum(x, axis): the sum of x * weights(x.shape), in float64."""
    return (x.astype(np.float64) * weights(x.shape)).sum(axis)


def back64(c, axis, shape):
    """The transpose of the sum over axis applied to c: c broadcast back over the summed
    axes to `shape`, in float64."""
    return np.broadcast_to(np.expand_dims(c.astype(np.float64), axis), shape)


def batched_sum64(xb, bd, axis):
    """jax.vmap of the sum over axis with the batch dimension of xb at bd: the batch
    dimension moved first, each example summed over axis, in float64."""
    return np.moveaxis(xb.astype(np.float64), bd, 0).sum(tuple(a + 1 for a in axis))


def batched_weighted_sum64(xb, bd, axis):
    """What a poisoned batching rule computes for `batched_sum64(xb, bd, axis)`: the operand,
    batch dimension first, weighted by the weights of that shape, summed."""
    moved = np.moveaxis(xb.astype(np.float64), bd, 0)
    return (moved * weights(moved.shape)).sum(tuple(a + 1 for a in axis))


# ------------------------------------------------------------ the questions ----------

def eager_and_jit(fn, args):
    """The expression text 'fn(args), jax.jit(fn)(args)': a path run eagerly, then compiled."""
    return f"{fn}({args}), jax.jit({fn})({args})"


def jvp_expr(axis):
    """The expression text of (v, r) -> jax.jvp of custom_reduce_sum over axis at v along r."""
    return f"(lambda v, r: jax.jvp(lambda u: custom_reduce_sum(u, {axis}), (v,), (r,)))"


def rule_dependence(ask, fn, args, pieces, *, what, hint, **inputs):
    """Ask `witness.rule_dependence(fn, args, primitive=custom_reduce_sum_p, pieces=pieces)`:
    fn's outputs on the named inputs run clean and with each piece poisoned (`fn` and
    `args` are expression text, `inputs` the arrays they name)."""
    return ask.run(f"witness.rule_dependence({fn}, {args}, primitive=custom_reduce_sum_p, pieces={pieces!r})",
                   **inputs, what=what, hint=hint)


# ------------------------------------------------------------ the checks ----------

def expect_sum_from_primitive(rep, x, axis, norm, modes=_JIT):
    """rep's outputs are custom_reduce_sum(x, axis) (axis as the student writes it, norm as
    a tuple), eagerly then, if `modes` names it, under jax.jit: each is the float64 sum, and
    each comes from custom_reduce_sum_p's given implementation, alone."""
    want = sum64(x, norm)
    for i, mode in enumerate(modes):
        checks.expect_close(rep.value[i], want, what=f"custom_reduce_sum(x, {axis!r}){mode}",
                            hint=GIVEN, atol=1e-5)
    depends(rep, "primitive", range(len(modes)), f"custom_reduce_sum(x, {axis!r})", KEEP_GIVEN,
            wants=[weighted_sum64(x, norm)] * len(modes))


def expect_given_behaviour(state, want, norm):
    """custom_reduce_sum_p's impl and lowering (from `given_primitive`'s state) give `want`,
    the sum over axis `norm`, and its abstract evaluation is the given one."""
    for got, name in ((state.impl, "the implementation (custom_reduce_sum_p.impl)"),
                      (state.lowering, "the lowering (under jax.jit)")):
        checks.expect(not isinstance(got, str), (
            f"{name.capitalize()} of custom_reduce_sum_p raised {got}; run the given cell unchanged."))
        checks.expect_close(got, want, what=f"custom_reduce_sum_p's {name} over axis {norm}",
                            hint="run the given cell unchanged", atol=1e-5)
    checks.expect(state.abstract_eval == {"shape": list(want.shape), "dtype": "float32", "effects": 0}, (
        f"The abstract evaluation of custom_reduce_sum_p over axis {norm} is not the given one "
        f"(it gave {state.abstract_eval}); run the given cell unchanged."))


def expect_jvp(rep, x, t, axes, *, primal, tangent, hint, of=""):
    """rep's outputs are, per axis, jax.jvp of custom_reduce_sum at x along t (primal,
    tangent), then the same under jax.jit. Each primal is sum(x), each tangent sum(t)
    (named by the templates `primal` and `tangent`, formatted with `axis`, `jvp` (jax.jvp or
    jax.jit(jax.jvp)) and `jit` ('' or ' under jax.jit')); every output comes from the JVP
    rule and is the poison's own result, every primal from the primitive, alone. `of` ends
    the names of the verdicts on the rules (' of 96 entries'; '' by default)."""
    for k, axis in enumerate(axes):
        for m, i in enumerate((4 * k, 4 * k + 2)):
            names = dict(axis=axis, jvp=("jax.jvp", "jax.jit(jax.jvp)")[m], jit=_JIT[m])
            checks.expect_close(rep.value[i], sum64(x, axis), atol=1e-5, what=primal.format(**names))
            checks.expect_close(rep.value[i + 1], sum64(t, axis), atol=1e-5,
                                what=tangent.format(**names), hint=hint)
    ys = [weighted_sum64(x, axis) for axis in axes]
    tys = [weighted_sum64(t, axis) for axis in axes]
    depends(rep, "jvp", range(4 * len(axes)), "jax.jvp of custom_reduce_sum" + of, KEEP_RULE,
            wants=[v for y, ty in zip(ys, tys) for v in (y, ty, y, ty)])
    depends(rep, "primitive", range(0, 4 * len(axes), 2), "the primal output of jax.jvp of custom_reduce_sum" + of,
            PRIMAL_BINDS, wants=[y for y in ys for _ in (0, 1)])


def expect_transpose(rep, cts, axes, shape, *, what, hint, of=""):
    """rep's outputs are, per axis, jax.linear_transpose of custom_reduce_sum over it (for an
    operand of `shape`) applied to its cotangent in `cts`, then the same under jax.jit. Each
    is the cotangent broadcast back (named by the template `what`, formatted with `axis` and
    `jit`), comes from the transpose rule and is the poison's own result. `of` ends the name
    of the verdict on the rule."""
    for k, (c, axis) in enumerate(zip(cts, axes)):
        want = back64(c, axis, shape)
        for m, i in enumerate((2 * k, 2 * k + 1)):
            checks.expect_close(rep.value[i], want, what=what.format(axis=axis, jit=_JIT[m]), hint=hint)
    W = weights(shape)
    depends(rep, "transpose", range(2 * len(axes)), "jax.linear_transpose of custom_reduce_sum" + of, KEEP_RULE,
            wants=[back64(c, axis, shape) * W for c, axis in zip(cts, axes) for _ in (0, 1)])


def expect_batched(rep, paths, wants, of=""):
    """rep's outputs are the jax.vmap paths (what, expression, float64 reference): each
    close to its reference; every output comes from the batching rule (the first
    len(wants) being the poison's own results `wants`) and from the primitive. `of` ends the
    names of the verdicts on the rule."""
    for i, (what, _, want) in enumerate(paths):
        checks.expect_close(rep.value[i], want, what=what, atol=1e-5, hint=BATCH_AXIS)
    depends(rep, "batching", range(len(paths)), "jax.vmap of custom_reduce_sum" + of, KEEP_RULE, wants=wants)
    depends(rep, "primitive", range(len(paths)), "jax.vmap of custom_reduce_sum" + of, BATCH_BINDS)


def expect_eager_and_jit(got, rep, paths, *, hint, **tol):
    """Each path (what, expression, float64 reference) close to its reference (within
    `tol`, checks.expect_close's rtol and atol), as run (`got`) and under jax.jit (rep's
    values), in that order for each path."""
    for i, (what, _, want) in enumerate(paths):
        checks.expect_close(got[i], want, what=what, hint=hint, **tol)
        checks.expect_close(rep.value[i], want, what=what + " under jax.jit", hint=hint, **tol)
