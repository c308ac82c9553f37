"""The questions gammaln_callback's tests ask again and again, and their hints: the forward
values, the gradient, equation counts (asked of the student's process, `ask.run`) and the
compiled program (run by the grader's executor, `ask.program`)."""

from autograder.shared import gates, probe

FORWARD_HINT = ("declare float32 results shaped like x with jax.ShapeDtypeStruct(x.shape, x.dtype) "
                "and return exactly that from the host function")
JVP_HINT = "give gammaln_cb a JVP rule with defjvp"
TANGENT_HINT = "the tangent of gammaln(x) is digamma(x) times the input tangent (x_dot)"
# The gradient the tests take, as it appears in their expressions.
GRAD = "jax.grad(lambda v: gammaln_cb(v).sum())"
# Names of the host functions poisoned where the witness serves the callbacks (ask.program)
# and where eager_replaced runs.
GAMMALN, DIGAMMA = "scipy.special.gammaln", "scipy.special.digamma"


def _key(inputs):
    """The name of the one input of a question."""
    (key,) = inputs
    return key


def run_forward(ask, **inputs):
    """`gammaln_cb(<the one input>)`, failing with the forward hint if it raises."""
    return ask.run(f"gammaln_cb({_key(inputs)})", what="gammaln_cb", hint=FORWARD_HINT, **inputs)


def run_grad(ask, *, jit=False, hint=JVP_HINT, **inputs):
    """`jax.grad(sum of gammaln_cb)(<the one input>)`, under jax.jit if `jit`."""
    fn, what = (f"jax.jit({GRAD})", "jax.jit(jax.grad(gammaln_cb))") if jit else (GRAD, "jax.grad(gammaln_cb)")
    return ask.run(f"{fn}({_key(inputs)})", what=what, hint=hint, **inputs)


def count_eqns(ask, primitive, fn="gammaln_cb", *, what="Tracing gammaln_cb", hint=FORWARD_HINT, **inputs):
    """How many `primitive` equations the jaxpr of `fn` (an expression) on the one input holds."""
    return ask.run(f"observe.count_eqns({fn}, {_key(inputs)}, primitive={primitive!r})",
                   what=what, hint=hint, **inputs)


def path_inputs(args):
    """(the names 'a' or 'a, t', the inputs as NumPy arrays) of one traced path."""
    return ", ".join("at"[:len(args)]), {n: probe.numpy(v) for n, v in zip("at", args)}


def compiled_program(ask, fn, args, *, what, hint, replace=(), optional=False):
    """The executor's report (an evidence.Report) on the compiled program of jax.jit(`fn`)
    (an expression) on `args` (one or two arrays, named a and t): run as it is, with its
    host callbacks' output poisoned, and with each host function of `replace` poisoned where
    the witness serves the callbacks; failing (gates.RAN) when it was not run. `optional`: None
    when the answer cannot lower `fn` at all (whether a vmap or jvp works is other tests'
    business)."""
    report = ask.program(fn, *"at"[:len(args)], what=what, hint=hint, replace=replace, optional=optional,
                         **path_inputs(args)[1])
    if report is not None:
        gates.check(report, (gates.RAN,), what=what)
    return report


def first_output(report):
    """The first output of a report (None when it has none)."""
    return report.value[0] if report.value else None
