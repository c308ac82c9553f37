"""Valid: the chapter's appendix solution of Exercise 2 pasted verbatim, with the
self-check asserts the chapter writes after it (np.testing.assert_allclose) and its print.

score: 10
"""
# Reference solution: Exercise 2 — SciPy gammaln / digamma through pure_callback, derivative via custom_jvp
import scipy.special as sps

def _scipy_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")       # SciPy ufuncs handle any shape

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_cb(sps.gammaln, x)

@gammaln_cb.defjvp
def _gammaln_jvp(p, t):
    (x,), (xd,) = p, t
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * xd

xs = jnp.linspace(0.5, 6.0, 12)
np.testing.assert_allclose(jax.jit(gammaln_cb)(xs), jax.scipy.special.gammaln(xs), rtol=1e-5)
np.testing.assert_allclose(jax.grad(lambda v: gammaln_cb(v).sum())(xs),
                           jax.grad(lambda v: jax.scipy.special.gammaln(v).sum())(xs), rtol=1e-4)
xs2 = xs.reshape(3, 4)
np.testing.assert_allclose(jax.vmap(jax.grad(lambda v: gammaln_cb(v).sum()))(xs2),
                           sps.digamma(np.asarray(xs2, np.float64)), rtol=1e-4)
print("Exercise 2 passed")
