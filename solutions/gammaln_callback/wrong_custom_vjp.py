"""Wrong: jax.custom_vjp instead of the required jax.custom_jvp. Reverse-mode gradients are
right, but the task asks for custom_jvp, and forward mode (jax.jvp) fails.

score: 7
messages:
  - gammaln_cb is not a jax.custom_jvp
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_vjp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


gammaln_cb.defvjp(lambda x: (gammaln_cb(x), x), lambda x, g: (_cb(sps.digamma, x) * g,))
