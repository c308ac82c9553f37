"""Valid: the chapter's higher-order fix: digamma is itself a custom_jvp over a callback (its
derivative, polygamma(1, x), through a third callback), so even jax.hessian works.

score: 10
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def digamma_cb(x):
    return _cb(sps.digamma, x)


digamma_cb.defjvps(lambda t, ans, x: _cb(lambda a: sps.polygamma(1, a), x) * t)


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


gammaln_cb.defjvps(lambda t, ans, x: digamma_cb(x) * t)
