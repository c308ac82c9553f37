"""What the tests of gammaln_callback share: `gammaln_cb`, a `jax.custom_jvp` whose forward
values come from `scipy.special.gammaln` and whose derivative from `scipy.special.digamma`,
both through `jax.pure_callback`.

Here: the "is it defined, is it a custom_jvp" preambles, the inputs the tests draw, the
questions they ask again and again (the forward values, the gradient, equation counts)
and the longer checks of the hidden tests (every path traced back to its host callback
and to SciPy, the ops of the compiled programs, the host functions called directly,
vmap at every axis, the jvp and the chain rule).

This module runs in the grader's process and may not import SciPy: the float64
references `scipy.special.gammaln` and `scipy.special.digamma` are passed in by the test
cells (`gammaln=sps.gammaln`, `digamma=sps.digamma`) and always called on float64 input.

Where the verdict is computed: every compiled program (`compiled_program`) is run by the
grader's executor, its host callbacks served by the witness's host functions, as it is,
with the callbacks' output poisoned and with SciPy's function poisoned where the witness
serves them; so are the ops of the optimized programs. What only the student's process can
observe (eager calls, jaxpr equations, the host functions called directly, isinstance) is
asked through `ask.run`, and every test that rests on it also passes a gate computed by the
executor (`expect_program_from_scipy`): the compiled forward (or derivative) program's
values are SciPy's, through the host callbacks.
"""
import numpy as np

from autograder.shared import checks, probe
from autograder.assignments.gammaln_callback import EXERCISE

FORWARD_HINT = ("declare float32 results shaped like x with jax.ShapeDtypeStruct(x.shape, x.dtype) "
                "and return exactly that from the host function")
JVP_HINT = "give gammaln_cb a JVP rule with defjvp"
TANGENT_HINT = "the tangent of gammaln(x) is digamma(x) times the input tangent (x_dot)"
# The gradient the tests take, as it appears in their expressions.
GRAD = "jax.grad(lambda v: gammaln_cb(v).sum())"
# Names of the host functions poisoned where the witness serves the callbacks (ask.program)
# and where eager_replaced runs.
GAMMALN, DIGAMMA = "scipy.special.gammaln", "scipy.special.digamma"
REPLACE_GAMMALN = f"replace=({GAMMALN!r},)"
REPLACE_DIGAMMA = f"replace=({DIGAMMA!r},)"

def expect_defined(ask):
    """The notebook defined gammaln_cb."""
    checks.expect(ask.defined("gammaln_cb"), "gammaln_cb is not defined; define it with @jax.custom_jvp.")


def case(env, *, concept):
    """The test cells' ritual (EXERCISE.case): every test first needs gammaln_cb defined."""
    return EXERCISE.case(env, concept=concept, before=expect_defined)


def expect_custom_jvp(ask, advice):
    """Fail with 'gammaln_cb is not a jax.custom_jvp; <advice>' unless it is one."""
    checks.expect(ask.run("isinstance(gammaln_cb, jax.custom_jvp)", what="The type of gammaln_cb"),
                  "gammaln_cb is not a jax.custom_jvp; " + advice)


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


# ------------------------------------------------------------------ inputs ----------

def public_input():
    """The public tests' input: 20 values from 0.3 to 9, float32, shape (4, 5)."""
    return np.linspace(0.3, 9.0, 20, dtype=np.float32).reshape(4, 5)


def large_input(rng):
    """A float32 input over the whole domain (`domain_values`) of random shape (40-71, 40-71)."""
    shape = (int(rng.integers(40, 72)), int(rng.integers(40, 72)))
    return domain_values(rng, int(np.prod(shape))).reshape(shape)


def huge_input(rng):
    """16384 float32 values over the whole domain (`domain_values`), shape (128, 128): three
    times the largest other size the tests try (100352 tripled a grading's time and reached
    its memory limit). Drawn with the same key by the tests that use it,
    so that each of its programs is compiled and run once per grading (probe.Ask.program):
    an answer that calls its host function once per element (lax.map) takes long there."""
    return domain_values(rng, 128 * 128).reshape(128, 128)


# The task's domain: every positive normal float32 (XLA on the CPU flushes subnormals to
# zero), and +inf and NaN for the values alone.
SMALLEST, LARGEST = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)
DOMAIN = "positive float32 inputs from 1.2e-38 to 3.4e38"
# Fixed points of the domain: its ends, next to the pole at 0, gammaln's zeros at 1 and 2,
# digamma's zero 1.4616, around 4.08e36 where float32's gammaln overflows to inf.
EDGES = (SMALLEST, 3e-38, 1e-30, 1e-10, 1e-6, 9.9e-4, 0.1, 0.999, 1.0, 1.001, 1.4616, 1.999, 2.0, 2.001,
         40.0, 4.0e36, 4.2e36, LARGEST)


def domain_values(rng, n):
    """n float32 values drawn over the whole domain: half log-uniformly from SMALLEST to
    LARGEST (near the pole, huge, overflowing), half uniformly from 0.1 to 40."""
    k = n // 2
    wide = np.exp(rng.uniform(np.log(SMALLEST), np.log(LARGEST), k))
    a = np.clip(np.concatenate([wide, rng.uniform(0.1, 40.0, n - k)]), SMALLEST, LARGEST).astype(np.float32)
    return rng.permutation(a)


def wide_inputs(rng, shape):
    """(a, big): float32 values of `shape` over the whole domain, EDGES first (as many as
    fit) then drawn (`domain_values`), shuffled; then a `large_input`."""
    n = int(np.prod(shape))
    fixed = np.array(EDGES[:n], np.float32)
    a = rng.permutation(np.concatenate([fixed, domain_values(rng, n - fixed.size)])).reshape(shape)
    return a, large_input(rng)


def forward_input(rng):
    """EDGES and 42 values drawn over the whole domain (`domain_values`), shuffled into a
    float32 (3, 4, 5)."""
    a = np.concatenate([np.array(EDGES, np.float32), domain_values(rng, 60 - len(EDGES))])
    return rng.permutation(a).reshape(3, 4, 5)


def special_input(rng):
    """NaN and +inf (twice each) among 8 values drawn over the domain, float32 (12,): what
    gammaln_cb's values must be at the task's special inputs."""
    a = np.concatenate([[np.nan, np.inf, np.nan, np.inf], domain_values(rng, 8)]).astype(np.float32)
    return rng.permutation(a)


def random_tangent(rng, shape):
    """A float32 tangent of `shape`, magnitudes 0.5 to 2 with random signs."""
    return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)


def gradient_input(rng):
    """EDGES, 20 values drawn over the domain, then +inf and NaN (float32, 40 values)."""
    return np.concatenate([EDGES, domain_values(rng, 20), [np.inf, np.nan]]).astype(np.float32)


def f32(values):
    """float64 `values` as float32 computes them (overflow to inf), back in float64: the
    reference of a float32 result."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, np.float64).astype(np.float32).astype(np.float64)


def scipy32(fn, x):
    """SciPy's `fn` on x in float64, rounded to float32 (so inf where float32 overflows)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return f32(fn(np.asarray(x, np.float64)))


# ---------------------------------------------------------- traced paths ------------

def _value(report):
    """The first output of a provenance report (None when it has none)."""
    return report["value"][0] if report["value"] else None


def _path_inputs(args):
    """(the names 'a' or 'a, t', the inputs as NumPy arrays) of one traced path."""
    return ", ".join("at"[:len(args)]), {n: probe.numpy(v) for n, v in zip("at", args)}


def compiled_program(ask, fn, args, *, what, hint, replace=(), optional=False):
    """The executor's report on the compiled program of jax.jit(`fn`) (an expression) on
    `args` (one or two arrays, named a and t): run as it is, with its host callbacks'
    output poisoned, and with each host function of `replace` poisoned where the witness
    serves the callbacks; failing when it was not run. `optional`: None when the answer
    cannot lower `fn` at all (whether a vmap or jvp works is other tests' business)."""
    report = ask.program(fn, *"at"[:len(args)], what=what, hint=hint, replace=replace, optional=optional,
                         **{n: probe.numpy(v) for n, v in zip("at", args)})
    if report is not None:
        checks.expect_ran(report, what)
    return report


def expect_program_from_scipy(ask, *, gammaln=None, digamma=None):
    """The gate of the tests that rest on what the student's process reports: the grader's
    own run of jax.jit(gammaln_cb) (given `gammaln`) and of jax.jit(jax.grad(gammaln_cb))
    (given `digamma`), in that order, on 12 values from 0.2 to 30 it draws, gives SciPy's
    values, which change everywhere when the host callbacks' output or SciPy's function is
    poisoned."""
    if gammaln is not None:
        _expect_program_from(ask, "gammaln_cb", "jax.jit(gammaln_cb)", gammaln, GAMMALN, FORWARD_HINT, derivative=False)
    if digamma is not None:
        _expect_program_from(ask, GRAD, "jax.jit(jax.grad(gammaln_cb))", digamma, DIGAMMA, JVP_HINT, derivative=True)


def _expect_program_from(ask, fn, what, reference, name, hint, *, derivative):
    """One program of expect_program_from_scipy: `fn` (an expression) against `reference`
    (SciPy's function `name`)."""
    x = np.sort(ask.uniform(98, (12,), 0.2, 30.0))
    rtol, atol = (1e-4, 1e-5) if derivative else (1e-5, 1e-6)
    report = compiled_program(ask, fn, (x,), what=what, hint=hint, replace=(name,))
    checks.expect_close(_value(report), reference(x.astype(np.float64)), what=f"{what} (the grader's run)",
                        rtol=rtol, atol=atol, hint=hint)
    checks.expect_depends(report, "pure_callback", message=(
        f"The values of {what} do not come from its jax.pure_callback calls, so this test earns nothing: every "
        "element must change when the pure callbacks' results do (an io_callback is not a pure callback)"))
    checks.expect_depends(report, name, message=(
        f"The values of {what} do not depend on {name}, so this test earns nothing: compute them on the host "
        f"with SciPy's {name.rpartition('.')[2]} through jax.pure_callback"))


def expect_pure_callback_not_io(ask, a):
    """gammaln_cb's jaxpr on `a` holds no io_callback and at least one pure_callback."""
    counts = {p: count_eqns(ask, p, a=probe.numpy(a)) for p in ("io_callback", "pure_callback")}
    checks.expect(counts["io_callback"] == 0, (
        "gammaln_cb uses io_callback; SciPy's gammaln is pure, so call it through jax.pure_callback."))
    checks.expect(counts["pure_callback"] > 0, (
        "gammaln_cb holds no jax.pure_callback; the forward values must come from "
        "scipy.special.gammaln on the host through jax.pure_callback."))


def check_forward_paths(ask, a, big, huge, t, gammaln):
    """Traced under jit: jit on `a`, on `big` and on `huge`, vmap(in_axes=1), nested vmap and
    the primal of jvp (tangent `t`): gammaln values (`gammaln` is scipy.special.gammaln, the
    reference rounded to float32), depending on the host callback everywhere, being its
    output, and depending on scipy.special.gammaln (but on `huge`, whose program runs only as
    the structure test runs it, once: a host function called per element takes long there).
    A vmap or jvp that raises is skipped: it is the business of the tests on vmap and
    derivatives."""
    def want(x):
        return scipy32(gammaln, x)

    # (what, expression of the path, inputs, reference, must run, SciPy poisoned too)
    paths = [("jax.jit(gammaln_cb)", "gammaln_cb", (a,), want(a), True, True),
             (f"jax.jit(gammaln_cb) on {big.size} elements", "gammaln_cb", (big,), want(big), True, True),
             (f"jax.jit(gammaln_cb) on {huge.size} elements", "gammaln_cb", (huge,), want(huge), True, False),
             ("jax.vmap(gammaln_cb, in_axes=1)", "jax.vmap(gammaln_cb, in_axes=1)", (a,),
              np.moveaxis(want(a), 1, 0), False, True),
             ("jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)",
              "jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)", (a,),
              np.moveaxis(np.moveaxis(want(a), 2, 0), 2, 1), False, True),
             ("the primal output of jax.jvp(gammaln_cb)", "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[0]",
              (a, t), want(a), False, True)]
    for what, fn, args, ref, must, scipy in paths:
        report = compiled_program(ask, fn, args, what=what, hint=FORWARD_HINT, replace=(GAMMALN,) if scipy else (),
                                  optional=not must)
        if report is None:
            continue
        checks.expect_close(_value(report), ref, what=f"{what} on {DOMAIN}",
                            hint="the values should be scipy.special.gammaln(x) for every element")
        checks.expect_depends(report, "pure_callback", message=(
            f"The values of {what} do not come from its pure_callback: every output element must change "
            "when the callback's result does (a callback whose result is unused or multiplied by zero "
            "beside JAX math does not count)"))
        checks.expect_straight(report, "pure_callback", message=(
            f"The values of {what} are not the callback's output itself: return scipy.special.gammaln(x) "
            "from the host function and compute nothing on the callback's result in JAX (reshaping it "
            "back is fine)"))
        if not scipy:
            continue
        checks.expect_depends(report, "scipy.special.gammaln", message=(
            f"The values of {what} do not depend on scipy.special.gammaln: compute them on the host with "
            "SciPy's gammaln (not math.lgamma, jax.scipy or another formula)"))


def check_forward_eager(ask, a, gammaln):
    """gammaln_cb called eagerly on `a`: the host callbacks that run are poisoned through
    JAX's callback wrapper (observe.eager_trace), then scipy.special.gammaln wherever it is
    referenced (witness.eager_replaced); the same verdicts as `check_forward_paths`."""
    what = "gammaln_cb called eagerly (without jit)"
    report = ask.run("observe.eager_trace(gammaln_cb, a)", a=probe.numpy(a), what=what, hint=FORWARD_HINT)
    checks.expect_close(_value(report), scipy32(gammaln, a), what=f"{what} on {DOMAIN}",
                        hint="the values should be scipy.special.gammaln(x) for every element")
    checks.expect_depends(report, "host_callback", message=(
        f"The values of {what} do not come from its host callback: call SciPy through "
        "jax.pure_callback on every path, eager included"))
    checks.expect_straight(report, "host_callback", message=(
        f"The values of {what} are not the callback's output itself: compute nothing on the "
        "callback's result in JAX"))
    report = ask.run(f"witness.eager_replaced(gammaln_cb, a, {REPLACE_GAMMALN})", a=probe.numpy(a), what=what,
                     hint=FORWARD_HINT)
    checks.expect_depends(report, "scipy.special.gammaln", message=(
        f"The values of {what} do not depend on scipy.special.gammaln: compute them on the host "
        "with SciPy's gammaln through jax.pure_callback on every path"))


def check_forward_special(ask, s, gammaln):
    """gammaln_cb on `s` (special_input: NaN and +inf among values of the domain), eagerly
    and under jax.jit, in the student's process: SciPy's values rounded to float32, NaN where
    NaN and inf where inf. Values only: the task lets a guard of the answer's own give them."""
    for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.jit(gammaln_cb)", "jax.jit(gammaln_cb)")):
        got = ask.run(f"{fn}(s)", s=probe.numpy(s), what=name, hint=FORWARD_HINT)
        checks.expect_close(got, scipy32(gammaln, s), what=f"{name} on NaN, +inf and {DOMAIN}",
                            hint="gammaln_cb(nan) is nan and gammaln_cb(inf) is inf, as SciPy's gammaln gives")


def expect_gradient_not_io(ask, a):
    """The jaxpr of the gradient on `a` holds no io_callback."""
    io = count_eqns(ask, "io_callback", GRAD, what="Tracing jax.grad(gammaln_cb)", hint=JVP_HINT,
                    a=probe.numpy(a))
    checks.expect(io == 0, (
        "The gradient of gammaln_cb uses io_callback; SciPy's digamma is pure, so call it through "
        "jax.pure_callback."))


def check_derivative_paths(ask, a, big, huge, t, digamma):
    """jit(grad) on `a`, on `big` and on `huge`, vmap(grad, in_axes=1) and jvp's tangent
    (tangent `t`), compiled (the executor's run, compiled_program) then, but for `huge`, eager
    (observe.eager_trace, witness.eager_replaced): digamma values (`digamma` is
    scipy.special.digamma, the reference rounded to float32) depending on the host callbacks
    and, but on `huge` (run once, as in the structure test), on scipy.special.digamma. The
    vmap and jvp paths are checked when they run (whether they run is other tests' business)."""
    def psi(x):
        return scipy32(digamma, x)

    jvp = "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[1]"
    # (what, expression, inputs, reference, must run, full: eager too, SciPy poisoned too)
    paths = [("jax.jit(jax.grad(gammaln_cb))", GRAD, (a,), psi(a), True, True),
             (f"jax.jit(jax.grad(gammaln_cb)) on {big.size} elements", GRAD, (big,), psi(big), True, True),
             (f"jax.jit(jax.grad(gammaln_cb)) on {huge.size} elements", GRAD, (huge,), psi(huge), True, False),
             ("jax.vmap(jax.grad(gammaln_cb), in_axes=1)", f"jax.vmap({GRAD}, in_axes=1)", (a,),
              psi(a).T, False, True),
             ("the tangent of jax.jvp(gammaln_cb)", jvp, (a, t), f32(psi(a) * t), False, True)]
    for what, fn, args, ref, must, full in paths:
        names, inputs = _path_inputs(args)
        for eager in (False, True)[:1 + full]:
            label = f"{what} (eager)" if eager else what
            # compiled: the grader's run poisons the program's host callbacks, and SciPy's digamma where
            # the witness serves them; eager: eager_trace poisons the host callbacks that run, eager_replaced digamma
            if eager:
                try:
                    report = ask.run(f"observe.eager_trace({fn}, {names})", what=label, hint=JVP_HINT, **inputs)
                except AssertionError:
                    if must:
                        raise
                    break
            else:
                report = compiled_program(ask, fn, args, what=label, hint=JVP_HINT,
                                          replace=(DIGAMMA,) if full else (), optional=not must)
                if report is None:
                    break
            checks.expect_close(_value(report), ref, rtol=1e-4, atol=1e-5,
                                what=f"{label} on {DOMAIN}", hint=TANGENT_HINT)
            checks.expect_depends(report, checks.callback_piece(report), message=(
                f"The values of {label} do not come from its pure_callback calls: every gradient element "
                "must change when the callbacks' results do; compute psi(x) with scipy.special.digamma "
                "through jax.pure_callback (jax.scipy.special.digamma does not count, nor does a "
                "callback whose result is unused or multiplied by zero)"))
            if not full:
                break
            if eager:
                report = ask.run(f"witness.eager_replaced({fn}, {names}, {REPLACE_DIGAMMA})", what=label,
                                 hint=JVP_HINT, **inputs)
            checks.expect_depends(report, DIGAMMA, message=(
                f"The values of {label} do not depend on scipy.special.digamma: compute psi(x) on the host "
                "with SciPy's digamma through jax.pure_callback (jax.scipy.special.digamma does not count)"))


# ------------------------------------------------- compiled programs, host functions -

# What the compiled programs may hold besides the callbacks (the task text's list):
# moving data, +, -, *, comparisons and selects, control flow; JAX's own lgamma and
# digamma need rounding, division, bit tricks, table lookups or transcendental ops.
ALLOWED_OPS = frozenset({
    "parameter", "constant", "custom-call", "tuple", "get-tuple-element", "bitcast", "reshape",
    "copy", "transpose", "broadcast", "convert", "slice", "dynamic-slice", "dynamic-update-slice",
    "concatenate", "pad", "iota", "reverse", "fusion", "call", "while", "conditional",
    "opt-barrier", "add", "subtract", "multiply", "negate", "abs", "maximum", "minimum",
    "compare", "select", "and", "or", "not", "is-finite"})


def expect_no_math_outside_callbacks(ask, *inputs):
    """The optimized programs of jax.jit(gammaln_cb) and jax.jit(jax.grad(gammaln_cb)), on
    each of `inputs`, hold no transcendental op and none outside ALLOWED_OPS."""
    for name, fn in (("jax.jit(gammaln_cb)", "gammaln_cb"), ("jax.jit(jax.grad(gammaln_cb))", GRAD)):
        for x in inputs:
            ops = compiled_program(ask, fn, (x,), what=name, hint=FORWARD_HINT)["opcodes"]   # the grader's compile
            checks.expect_no_ops(ops, checks.TRANSCENDENTAL | (set(ops) - ALLOWED_OPS), message=(
                f"The compiled program of {name} on a float32 input of shape {x.shape} computes math "
                "outside the callbacks: log-gamma and digamma must be computed by SciPy on the host, and "
                "around the callbacks only +, -, *, comparisons, selects, reshapes, copies, broadcasts, "
                "slices and dtype conversions are allowed"))


def expect_host_functions_run_no_jax(ask, a):
    """Every host function of gammaln_cb and of its gradient, called directly on the NumPy
    array `a`, runs no JAX code."""
    for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.grad(gammaln_cb)", GRAD)):
        found = ask.run(f"witness.host_functions({fn}, a)", a=probe.numpy(a), what=f"Tracing {name}",
                        hint=FORWARD_HINT)
        for entry in found:
            checks.expect(not entry["jax"], (
                f"A host function of a callback in {name} runs JAX code when the grader calls it directly "
                "on a NumPy float32 array; compute on the host with SciPy and NumPy only (np.asarray, not "
                "jnp.asarray; scipy.special, not jax.scipy)."))


# ------------------------------------------------------------ dtype and shapes ------

# The hint for each of the two functions the shape test runs.
SHAPE_HINTS = {"gammaln_cb": FORWARD_HINT,
               "jax.grad(gammaln_cb)": "give gammaln_cb a JVP rule with defjvp whose tangent is a float32 "
                                       "array shaped like x"}


def flat_input():
    """24 values from 0.7 to 12, float32, 1-D: the shape test's input and references."""
    return np.linspace(0.7, 12.0, 24, dtype=np.float32)


def values_on_flat(ask, flat):
    """{name: float64 values} of gammaln_cb and of its gradient on the 1-D `flat`: the
    references for the same values in other shapes."""
    ref = {}
    for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.grad(gammaln_cb)", GRAD)):
        got = ask.run(f"{fn}(a)", a=probe.numpy(flat), what=f"{name} on a 1-D float32 input",
                      hint=SHAPE_HINTS[name])
        ref[name] = np.asarray(got, np.float64)
    return ref


def check_shapes(ask, flat, ref):
    """gammaln_cb, its jit, its gradient and jit of the gradient on the first elements of
    `flat` shaped (), (1,) and (2, 3, 4): float32 results equal to `ref` (values_on_flat)
    reshaped."""
    for shape in ((), (1,), (2, 3, 4)):
        n = int(np.prod(shape))
        a = flat[:n].reshape(shape)
        for name, fn, key in (("gammaln_cb", "gammaln_cb", "gammaln_cb"),
                              ("jax.jit(gammaln_cb)", "jax.jit(gammaln_cb)", "gammaln_cb"),
                              ("jax.grad(gammaln_cb)", GRAD, "jax.grad(gammaln_cb)"),
                              ("jax.jit(jax.grad(gammaln_cb))", f"jax.jit({GRAD})", "jax.grad(gammaln_cb)")):
            what = f"{name} on a float32 input of shape {shape}"
            got = ask.run(f"{fn}(a)", a=probe.numpy(a), what=what, hint=SHAPE_HINTS[key])
            checks.expect_dtype(got, np.float32, what=what,
                                hint="float32 in, float32 out: declare float32 results and cast the host result")
            checks.expect_close(got, ref[key][:n].reshape(shape), what=what, rtol=1e-5, atol=1e-6,
                                hint="gammaln_cb acts elementwise and keeps the input's shape, 0-d included")


def check_host_functions_declared(ask, flat):
    """Every host function of gammaln_cb and of its gradient, called directly on NumPy
    float32 arrays of shapes (2, 3, 4), (), (0,) and (3, 0, 2) (JAX casts a callback's
    result silently and never calls the host for an empty output), raises nothing and
    returns exactly the number, dtypes and shapes of arrays it declares."""
    for shape in ((2, 3, 4), (), (0,), (3, 0, 2)):
        a = flat[:int(np.prod(shape))].reshape(shape)
        for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.grad(gammaln_cb)", GRAD)):
            found = ask.run(f"witness.host_functions({fn}, a)", a=probe.numpy(a),
                            what=f"Tracing {name} on a float32 input of shape {shape}", hint=SHAPE_HINTS[name])
            on = f"when called directly on a NumPy float32 array of shape {shape}" + (" (empty)" if a.size == 0 else "")
            for entry in found:
                checks.expect("error" not in entry, (
                    f"A host function of a callback in {name} raised {entry.get('error')} {on}; accept "
                    "NumPy arrays (np.asarray first) of any shape, empty and 0-d included."))
                declared, returned = entry["declared"], entry["returned"]
                checks.expect(len(returned) == len(declared), (
                    f"A host function of a callback in {name} returns {len(returned)} arrays where "
                    f"{len(declared)} are declared, {on}."))
                for (shape_d, dtype_d), (shape_r, dtype_r, kind) in zip(declared, returned):
                    checks.expect(dtype_r == dtype_d, (
                        f"A host function of a callback in {name} returns {dtype_r} where {dtype_d} is "
                        f"declared, {on}; return exactly the declared dtype (end with .astype(np.float32)), "
                        "for every input."))
                    checks.expect(list(shape_r) == list(shape_d), (
                        f"A host function of a callback in {name} returns shape {tuple(shape_r)} where "
                        f"{tuple(shape_d)} is declared, {on}."))


# -------------------------------------------------------------------- vmap ----------

VMAP_HINT = "give every jax.pure_callback a vmap_method, and return one result per example of the batch"


def expect_some_pure_callback(ask, row):
    """gammaln_cb or its gradient, traced on the 1-D `row`, holds a pure_callback (the
    gradient only may hold it: if tracing it raises, that is checked elsewhere)."""
    callbacks = count_eqns(ask, "pure_callback", a=probe.numpy(row))
    try:
        callbacks += count_eqns(ask, "pure_callback", GRAD, what=None, hint="", a=probe.numpy(row))
    except AssertionError:
        pass  # the gradient is checked elsewhere; here it only may hold the callback
    checks.expect(callbacks > 0, (
        "gammaln_cb and its gradient hold no jax.pure_callback, so there is no vmap_method to check; "
        "call SciPy through jax.pure_callback and choose its vmap_method."))


def check_vmap_every_axis(ask, a):
    """vmap of an elementwise function agrees with the function on the whole array: first
    gammaln_cb or its gradient holds a pure_callback (on `row`, a[0, 0]); then vmap of
    gammaln_cb over each axis of the 3-D `a`, nested, and over the 0-d elements of `row`
    against `y` (gammaln_cb(a)); jit(vmap(grad, in_axes=1)) against `g`
    (jax.grad(gammaln_cb)(a))."""
    row = np.ascontiguousarray(a[0, 0])
    expect_some_pure_callback(ask, row)
    y = np.asarray(run_forward(ask, a=probe.numpy(a)))
    g = np.asarray(run_grad(ask, a=probe.numpy(a)))
    for ax in (0, 1, 2):
        got = ask.run(f"jax.vmap(gammaln_cb, in_axes={ax})(a)", a=probe.numpy(a),
                      what=f"jax.vmap(gammaln_cb, in_axes={ax})", hint=VMAP_HINT)
        checks.expect_close(got, np.moveaxis(y, ax, 0),
                            what=f"jax.vmap(gammaln_cb, in_axes={ax}) (against gammaln_cb on the whole array)",
                            hint=VMAP_HINT)
    got = ask.run("jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)(a)", a=probe.numpy(a),
                  what="Nested jax.vmap of gammaln_cb", hint=VMAP_HINT)
    checks.expect_close(got, np.moveaxis(np.moveaxis(y, 2, 0), 2, 1),
                        what="Nested jax.vmap of gammaln_cb (against gammaln_cb on the whole array)", hint=VMAP_HINT)
    got = ask.run("jax.vmap(gammaln_cb)(a)", a=probe.numpy(row), what="jax.vmap of gammaln_cb over 0-d elements",
                  hint=VMAP_HINT)
    checks.expect_close(got, y[0, 0],
                        what="jax.vmap of gammaln_cb over 0-d elements (against gammaln_cb on the whole array)",
                        hint=VMAP_HINT)
    got = ask.run(f"jax.jit(jax.vmap({GRAD}, in_axes=1))(a)", a=probe.numpy(a),
                  what="jax.jit(jax.vmap(jax.grad(gammaln_cb), in_axes=1))",
                  hint="the derivative's callback needs a vmap_method too")
    checks.expect_close(got, np.moveaxis(g, 1, 0), rtol=1e-5, atol=1e-6,
                        what="jax.jit(jax.vmap(jax.grad(gammaln_cb), in_axes=1)) (against jax.grad(gammaln_cb) "
                             "on the whole array)",
                        hint="the derivative's callback needs a vmap_method too")


# ------------------------------------------------------------- gradient values ------

def check_gradients(ask, a, digamma):
    """jax.grad(gammaln_cb) and its jit on `a` equal digamma(a) rounded to float32
    (`digamma` is scipy.special.digamma), NaN and infinities exactly."""
    for jit in (False, True):
        got = run_grad(ask, jit=jit, a=probe.numpy(a))
        name = "jax.jit(jax.grad(gammaln_cb))" if jit else "jax.grad(gammaln_cb)"
        checks.expect_close(got, scipy32(digamma, a), what=f"{name} on {DOMAIN}, +inf and NaN",
                            rtol=1e-4, atol=1e-5, hint=TANGENT_HINT)


def check_jvp(ask, a, gammaln, digamma):
    """jax.jvp(gammaln_cb) at `a` with a tangent other than ones (magnitudes 0.5 to 2, signs
    alternating): primal gammaln(a), tangent digamma(a) * t, rounded to float32 (`gammaln`,
    `digamma` from scipy.special), NaN and infinities exactly."""
    t = (np.linspace(0.5, 2.0, a.size) * (-1.0) ** np.arange(a.size)).astype(np.float32)
    y, y_dot = ask.run("jax.jvp(gammaln_cb, (a,), (t,))", a=probe.numpy(a), t=probe.numpy(t),
                       what="jax.jvp of gammaln_cb", hint=JVP_HINT)
    checks.expect_close(y, scipy32(gammaln, a), what=f"The primal output of jax.jvp(gammaln_cb) on {DOMAIN}, +inf and NaN")
    checks.expect_close(y_dot, f32(scipy32(digamma, a) * t), rtol=1e-4, atol=1e-5,
                        what="The tangent output of jax.jvp(gammaln_cb) for a tangent other than ones",
                        hint="multiply digamma(x) by the input tangent")


def check_chain_rule(ask, digamma):
    """jax.grad of sum(gammaln_cb(x * x) / 2) at b, 8 values from 0.4 to 6 (x * x stays in
    the domain), equals b * digamma(b ** 2)."""
    b = np.geomspace(0.4, 6.0, 8).astype(np.float32)
    got = ask.run("jax.grad(lambda v: jnp.sum(gammaln_cb(v * v) * 0.5))(b)", b=probe.numpy(b),
                  what="jax.grad of gammaln_cb(x * x)", hint=JVP_HINT)
    checks.expect_close(got, b.astype(np.float64) * digamma(b.astype(np.float64) ** 2), rtol=1e-4, atol=1e-5,
                        what="The gradient of gammaln_cb(x * x) / 2 (chain rule)", hint=TANGENT_HINT)
