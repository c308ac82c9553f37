"""Valid: the derivative given with defjvps (tangent function of (t, ans, x)), callbacks
batched with vmap_method="broadcast_all".

score: 10
"""
def _call(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(jnp.shape(x), jnp.float32), x,
                             vmap_method="broadcast_all")


@jax.custom_jvp
def gammaln_cb(x):
    return _call(sps.gammaln, x)


gammaln_cb.defjvps(lambda t, ans, x: _call(sps.digamma, x) * t)
