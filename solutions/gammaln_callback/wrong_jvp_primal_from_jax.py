"""Wrong: the JVP rule returns jax.scipy.special.gammaln(x) as its primal output; the
forward pass alone and the tangent use the callbacks. Every value is right.

score: 9
messages:
  - The values of the primal output of jax.jvp(gammaln_cb) do not come from its pure_callback
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
    return jax.scipy.special.gammaln(x), _cb(sps.digamma, x) * xd
