"""Wrong: the JVP holds a pure_callback to SciPy's digamma, but multiplies its result by
zero; the derivative comes from jax.scipy.special.digamma beside it. Every gradient is
right and the callback is there.

score: 8
messages:
  - do not come from its host callbacks
  - computes math outside the callbacks
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.scipy.special.digamma(x) + 0 * _cb(sps.digamma, x)
    return gammaln_cb(x), psi * t
