"""Wrong: psi(x) is half the digamma callback's result plus half of
jax.scipy.special.digamma(x): the gradient depends on the callback and on SciPy's digamma
everywhere, and every value is right, but digamma is also computed in JAX.

score: 9
messages:
  - The compiled program of jax.jit(jax.grad(gammaln_cb))
  - computes math outside the callbacks
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(p, t):
    (x,), (xd,) = p, t
    return gammaln_cb(x), (0.5 * _cb(sps.digamma, x) + 0.5 * jax.scipy.special.digamma(x)) * xd
