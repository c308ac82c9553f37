"""gammaln_callback's values asked of the student's process (`ask.run`) and compared with
SciPy's or with each other: dtypes and shapes, vmap at every axis, the gradient, the jvp and
the chain rule."""
import numpy as np

from autograder.shared import checks, probe
from autograder.assignments.gammaln_callback.hostfns import SHAPE_HINTS
from autograder.assignments.gammaln_callback.questions import GRAD, JVP_HINT, TANGENT_HINT, count_eqns, run_forward, run_grad
from autograder.assignments.gammaln_callback.references import DOMAIN, f32, scipy32

# ------------------------------------------------------------ dtype and shapes ------


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
            checks.expect_close(got, ref[key][:n].reshape(shape), what=what, rtol=1e-5, atol=1e-6, at=a,
                                hint="gammaln_cb acts elementwise and keeps the input's shape, 0-d included")


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
        checks.expect_close(got, np.moveaxis(y, ax, 0), at=np.moveaxis(a, ax, 0),
                            what=f"jax.vmap(gammaln_cb, in_axes={ax}) (against gammaln_cb on the whole array)",
                            hint=VMAP_HINT)
    got = ask.run("jax.vmap(jax.vmap(gammaln_cb, in_axes=1), in_axes=2)(a)", a=probe.numpy(a),
                  what="Nested jax.vmap of gammaln_cb", hint=VMAP_HINT)
    checks.expect_close(got, np.moveaxis(np.moveaxis(y, 2, 0), 2, 1), at=np.moveaxis(np.moveaxis(a, 2, 0), 2, 1),
                        what="Nested jax.vmap of gammaln_cb (against gammaln_cb on the whole array)", hint=VMAP_HINT)
    got = ask.run("jax.vmap(gammaln_cb)(a)", a=probe.numpy(row), what="jax.vmap of gammaln_cb over 0-d elements",
                  hint=VMAP_HINT)
    checks.expect_close(got, y[0, 0], at=row,
                        what="jax.vmap of gammaln_cb over 0-d elements (against gammaln_cb on the whole array)",
                        hint=VMAP_HINT)
    got = ask.run(f"jax.jit(jax.vmap({GRAD}, in_axes=1))(a)", a=probe.numpy(a),
                  what="jax.jit(jax.vmap(jax.grad(gammaln_cb), in_axes=1))",
                  hint="the derivative's callback needs a vmap_method too")
    checks.expect_close(got, np.moveaxis(g, 1, 0), rtol=1e-5, atol=1e-6, at=np.moveaxis(a, 1, 0),
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
                            rtol=1e-4, atol=1e-5, hint=TANGENT_HINT, at=a)


def check_jvp(ask, a, gammaln, digamma):
    """jax.jvp(gammaln_cb) at `a` with a tangent other than ones (magnitudes 0.5 to 2, signs
    alternating): primal gammaln(a), tangent digamma(a) * t, rounded to float32 (`gammaln`,
    `digamma` from scipy.special), NaN and infinities exactly."""
    t = (np.linspace(0.5, 2.0, a.size) * (-1.0) ** np.arange(a.size)).astype(np.float32)
    y, y_dot = ask.run("jax.jvp(gammaln_cb, (a,), (t,))", a=probe.numpy(a), t=probe.numpy(t),
                       what="jax.jvp of gammaln_cb", hint=JVP_HINT)
    checks.expect_close(y, scipy32(gammaln, a), what=f"The primal output of jax.jvp(gammaln_cb) on {DOMAIN}, +inf and NaN",
                        at=a)
    checks.expect_close(y_dot, f32(scipy32(digamma, a) * t), rtol=1e-4, atol=1e-5, at=a,
                        what="The tangent output of jax.jvp(gammaln_cb) for a tangent other than ones",
                        hint="multiply digamma(x) by the input tangent")


def check_chain_rule(ask, digamma):
    """jax.grad of sum(gammaln_cb(x * x) / 2) at b, 8 values from 0.4 to 6 (x * x stays in
    the domain), equals b * digamma(b ** 2)."""
    b = np.geomspace(0.4, 6.0, 8).astype(np.float32)
    got = ask.run("jax.grad(lambda v: jnp.sum(gammaln_cb(v * v) * 0.5))(b)", b=probe.numpy(b),
                  what="jax.grad of gammaln_cb(x * x)", hint=JVP_HINT)
    checks.expect_close(got, b.astype(np.float64) * digamma(b.astype(np.float64) ** 2), rtol=1e-4, atol=1e-5, at=b,
                        what="The gradient of gammaln_cb(x * x) / 2 (chain rule)", hint=TANGENT_HINT)
