"""Every path of gammaln_cb traced back to its host callback and to SciPy: jit, vmap, the
jvp and eager calls, for the forward values and for the derivative, each judged by one loop
(`check_path`) against the gates declared once here; and the gate of the tests that rest on
what the student's process reports (`expect_program_from_scipy`).

A compiled path is the grader's executor's run (questions.compiled_program): its pure
callbacks' output poisoned, and SciPy's function poisoned where the witness serves the
callbacks. An eager path runs in the student's process: observe.eager_trace poisons the
host callbacks that run, witness.eager_replaced SciPy's function wherever it is referenced.
"""
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.shared import checks, evidence, gates, probe
from autograder.assignments.gammaln_callback.questions import (
    DIGAMMA, FORWARD_HINT, GAMMALN, GRAD, JVP_HINT, TANGENT_HINT, compiled_program, count_eqns, first_output,
    path_inputs)
from autograder.assignments.gammaln_callback.references import DOMAIN, f32, scipy32

# ---- the gates ({what}: how the path is named) ----

# The forward values of a compiled path: the pure callback's output, from SciPy's gammaln.
FORWARD_COMPILED = (
    gates.DependsOn("The values of {what} do not come from its pure_callback: every output element must change "
                    "when the callback's result does (a callback whose result is unused or multiplied by zero "
                    "beside JAX math does not count)", piece=evidence.PURE_CALLBACK),
    gates.StraightFrom("The values of {what} are not the callback's output itself: return scipy.special.gammaln(x) "
                       "from the host function and compute nothing on the callback's result in JAX (reshaping it "
                       "back is fine)", piece=evidence.PURE_CALLBACK),
)
FORWARD_COMPILED_SCIPY = (
    gates.DependsOn("The values of {what} do not depend on scipy.special.gammaln: compute them on the host with "
                    "SciPy's gammaln (not math.lgamma, jax.scipy or another formula)", piece=GAMMALN),
)
# The forward values called eagerly.
FORWARD_EAGER = (
    gates.DependsOn("The values of {what} do not come from its host callback: call SciPy through "
                    "jax.pure_callback on every path, eager included", piece=evidence.HOST_CALLBACK),
    gates.StraightFrom("The values of {what} are not the callback's output itself: compute nothing on the "
                       "callback's result in JAX", piece=evidence.HOST_CALLBACK),
)
FORWARD_EAGER_SCIPY = (
    gates.DependsOn("The values of {what} do not depend on scipy.special.gammaln: compute them on the host "
                    "with SciPy's gammaln through jax.pure_callback on every path", piece=GAMMALN),
)
# The derivative, compiled (the executor tells pure_callback from io_callback) and eager
# (every host callback that ran): the same sentences.
_DERIVATIVE_CALLBACK = ("The values of {what} do not come from its pure_callback calls: every gradient element "
                        "must change when the callbacks' results do; compute psi(x) with scipy.special.digamma "
                        "through jax.pure_callback (jax.scipy.special.digamma does not count, nor does a "
                        "callback whose result is unused or multiplied by zero)")
DERIVATIVE_COMPILED = (gates.DependsOn(_DERIVATIVE_CALLBACK, piece=evidence.PURE_CALLBACK),)
DERIVATIVE_EAGER = (gates.DependsOn(_DERIVATIVE_CALLBACK, piece=evidence.HOST_CALLBACK),)
DERIVATIVE_SCIPY = (
    gates.DependsOn("The values of {what} do not depend on scipy.special.digamma: compute psi(x) on the host "
                    "with SciPy's digamma through jax.pure_callback (jax.scipy.special.digamma does not count)",
                    piece=DIGAMMA),
)
# What expect_program_from_scipy asks of jax.jit(gammaln_cb) (GAMMALN) and of its gradient (DIGAMMA).
FROM_SCIPY = {name: (
    gates.DependsOn("The values of {what} do not come from its jax.pure_callback calls, so this test earns "
                    "nothing: every element must change when the pure callbacks' results do (an io_callback "
                    "is not a pure callback)", piece=evidence.PURE_CALLBACK),
    gates.DependsOn(f"The values of {{what}} do not depend on {name}, so this test earns nothing: compute them "
                    f"on the host with SciPy's {name.rpartition('.')[2]} through jax.pure_callback", piece=name),
) for name in (GAMMALN, DIGAMMA)}


# ---- the one loop ----

@dataclass(frozen=True)
class Side:
    """What the paths of one side (the forward values, the derivative) are judged by."""
    hint: str                     # the questions' hint
    scipy: str                    # SciPy's function (GAMMALN, DIGAMMA), poisoned too where the path says so
    close: dict                   # expect_close's hint and tolerances
    compiled: tuple               # the gates of a compiled path, then with SciPy's function poisoned
    compiled_scipy: tuple
    eager: tuple                  # the same of an eager path
    eager_scipy: tuple


FORWARD = Side(FORWARD_HINT, GAMMALN, dict(hint="the values should be scipy.special.gammaln(x) for every element"),
               FORWARD_COMPILED, FORWARD_COMPILED_SCIPY, FORWARD_EAGER, FORWARD_EAGER_SCIPY)
DERIVATIVE = Side(JVP_HINT, DIGAMMA, dict(hint=TANGENT_HINT, rtol=1e-4, atol=1e-5),
                  DERIVATIVE_COMPILED, DERIVATIVE_SCIPY, DERIVATIVE_EAGER, DERIVATIVE_SCIPY)

COMPILED, EAGER = "compiled", "eager"


@dataclass(frozen=True)
class Path:
    """One traced path: jax.jit(`fn`) (an expression) and/or `fn` called eagerly, on `args`
    (named a and t), against `reference`."""
    what: str
    fn: str
    args: tuple
    reference: Any
    must: bool = True             # it must run; else one that cannot is skipped (other tests' business)
    scipy: bool = True            # SciPy's function is poisoned too
    runs: tuple = (COMPILED,)     # in this order; a run that cannot happen skips the rest
    eager_what: str = ""          # the eager run's name ("<what> (eager)" by default)


def check_path(ask, side: Side, path: Path):
    """Each run of `path`: the values close to the reference on the domain, the side's
    gates of the run (from the callbacks), then, if `path.scipy`, those of SciPy's function."""
    names, inputs = path_inputs(path.args)
    for run in path.runs:
        eager = run == EAGER
        what = (path.eager_what or f"{path.what} (eager)") if eager else path.what
        if eager:
            try:
                report = ask.run(f"observe.eager_trace({path.fn}, {names})", what=what, hint=side.hint, **inputs)
            except AssertionError:
                if path.must:
                    raise
                return
        else:
            report = compiled_program(ask, path.fn, path.args, what=what, hint=side.hint,
                                      replace=(side.scipy,) if path.scipy else (), optional=not path.must)
            if report is None:
                return
        checks.expect_close(first_output(report), path.reference, what=f"{what} on {DOMAIN}", at=path.args[0],
                            **side.close)
        gates.check(report, side.eager if eager else side.compiled, what=what)
        if not path.scipy:
            continue
        if eager:
            report = ask.run(f"witness.eager_replaced({path.fn}, {names}, replace=({side.scipy!r},))", what=what,
                             hint=side.hint, **inputs)
        gates.check(report, side.eager_scipy if eager else side.compiled_scipy, what=what)


# ---- the paths ----

def expect_program_from_scipy(ask, *, gammaln=None, digamma=None):
    """The gate of the tests that rest on what the student's process reports: the grader's
    own run of jax.jit(gammaln_cb) (given `gammaln`) and of jax.jit(jax.grad(gammaln_cb))
    (given `digamma`), in that order, on 12 values from 0.2 to 30 it draws, gives SciPy's
    values, which change everywhere when the host callbacks' output or SciPy's function is
    poisoned (FROM_SCIPY)."""
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
    checks.expect_close(first_output(report), reference(x.astype(np.float64)), what=f"{what} (the grader's run)",
                        rtol=rtol, atol=atol, hint=hint, at=x)
    gates.check(report, FROM_SCIPY[name], what=what)


def expect_pure_callback_not_io(ask, a):
    """gammaln_cb's jaxpr on `a` holds no io_callback and at least one pure_callback."""
    io, pure = (count_eqns(ask, p, a=probe.numpy(a)) for p in ("io_callback", "pure_callback"))
    checks.expect(io == 0, (
        "gammaln_cb uses io_callback; SciPy's gammaln is pure, so call it through jax.pure_callback."))
    checks.expect(pure > 0, (
        "gammaln_cb holds no jax.pure_callback; the forward values must come from "
        "scipy.special.gammaln on the host through jax.pure_callback."))


def check_forward_paths(ask, a, big, t, gammaln):
    """Traced under jit: jit on `a` and on `big`, vmap(in_axes=1), nested vmap and the primal
    of jvp (tangent `t`): gammaln values (`gammaln` is scipy.special.gammaln, the reference
    rounded to float32), depending on the host callback everywhere, being its output, and
    depending on scipy.special.gammaln, `big` (a few thousand values over the whole domain)
    included: SciPy's poison is keyed on the grader's input (substitute.PoisonUfunc), so a
    host function's self-test at a known point cannot tell it is poisoned. A vmap or
    jvp that raises is skipped: it is the business of the tests on vmap and derivatives."""
    def want(x):
        return scipy32(gammaln, x)

    for path in (Path("jax.jit(gammaln_cb)", "gammaln_cb", (a,), want(a)),
                 Path(f"jax.jit(gammaln_cb) on {big.size} elements", "gammaln_cb", (big,), want(big)),
                 Path("jax.vmap(gammaln_cb, in_axes=1)", "jax.vmap(gammaln_cb, in_axes=1)", (a,),
                      np.moveaxis(want(a), 1, 0), must=False),
                 Path("jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)",
                      "jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)", (a,),
                      np.moveaxis(np.moveaxis(want(a), 2, 0), 2, 1), must=False),
                 Path("the primal output of jax.jvp(gammaln_cb)", "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[0]",
                      (a, t), want(a), must=False)):
        check_path(ask, FORWARD, path)


def check_forward_eager(ask, a, gammaln):
    """gammaln_cb called eagerly on `a`: the host callbacks that run are poisoned through
    JAX's callback wrapper (observe.eager_trace), then scipy.special.gammaln wherever it is
    referenced (witness.eager_replaced); the same verdicts as `check_forward_paths`."""
    what = "gammaln_cb called eagerly (without jit)"
    check_path(ask, FORWARD, Path(what, "gammaln_cb", (a,), scipy32(gammaln, a), runs=(EAGER,), eager_what=what))


def check_forward_special(ask, s, gammaln):
    """gammaln_cb on `s` (special_input: NaN and +inf among values of the domain), eagerly
    and under jax.jit, in the student's process: SciPy's values rounded to float32, NaN where
    NaN and inf where inf. Values only: the task lets a guard of the answer's own give them."""
    for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.jit(gammaln_cb)", "jax.jit(gammaln_cb)")):
        got = ask.run(f"{fn}(s)", s=probe.numpy(s), what=name, hint=FORWARD_HINT)
        checks.expect_close(got, scipy32(gammaln, s), what=f"{name} on NaN, +inf and {DOMAIN}", at=s,
                            hint="gammaln_cb(nan) is nan and gammaln_cb(inf) is inf, as SciPy's gammaln gives")


def expect_gradient_not_io(ask, a):
    """The jaxpr of the gradient on `a` holds no io_callback."""
    io = count_eqns(ask, "io_callback", GRAD, what="Tracing jax.grad(gammaln_cb)", hint=JVP_HINT,
                    a=probe.numpy(a))
    checks.expect(io == 0, (
        "The gradient of gammaln_cb uses io_callback; SciPy's digamma is pure, so call it through "
        "jax.pure_callback."))


def check_derivative_paths(ask, a, big, t, digamma):
    """jit(grad) on `a` and on `big`, vmap(grad, in_axes=1) and jvp's tangent (tangent `t`),
    compiled (the executor's run, compiled_program) then, but for `big`, eager
    (observe.eager_trace, witness.eager_replaced): digamma values (`digamma` is
    scipy.special.digamma, the reference rounded to float32) depending on the host callbacks
    and on scipy.special.digamma (keyed on the grader's input, `big` included). The vmap and jvp
    paths are checked when they run (whether they run is other tests' business)."""
    def psi(x):
        return scipy32(digamma, x)

    both = (COMPILED, EAGER)
    jvp = "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[1]"
    for path in (Path("jax.jit(jax.grad(gammaln_cb))", GRAD, (a,), psi(a), runs=both),
                 Path(f"jax.jit(jax.grad(gammaln_cb)) on {big.size} elements", GRAD, (big,), psi(big)),
                 Path("jax.vmap(jax.grad(gammaln_cb), in_axes=1)", f"jax.vmap({GRAD}, in_axes=1)", (a,), psi(a).T,
                      must=False, runs=both),
                 Path("the tangent of jax.jvp(gammaln_cb)", jvp, (a, t), f32(psi(a) * t), must=False, runs=both)):
        check_path(ask, DERIVATIVE, path)
