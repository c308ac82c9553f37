"""Valid: gammaln's callback result goes through a jnp.where guard that passes +-inf inputs
through as +inf (gammaln(+-inf) is +inf: the same values), the callback's result everywhere
else. A predicate on the input and a select around a callback are allowed.

score: 10
"""
def _scipy_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return jnp.where(jnp.isinf(x), jnp.inf, _scipy_cb(sps.gammaln, x))


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * x_dot
