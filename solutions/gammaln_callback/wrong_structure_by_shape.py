"""Wrong: calls SciPy through pure_callback only for small inputs (up to 256 elements, the
sizes a structural check is likely to trace), and computes with jax.scipy for larger ones,
in the forward pass and in the derivative. Every value is right at every size.

score: 7
messages:
  - do not come from its pure_callback
  - computes math outside the callbacks
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if x.size <= 256:
        return _cb(sps.gammaln, x)
    return jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = _cb(sps.digamma, x) if x.size <= 256 else jax.scipy.special.digamma(x)
    return gammaln_cb(x), psi * t
