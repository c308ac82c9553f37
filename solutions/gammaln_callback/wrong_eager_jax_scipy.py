"""Wrong: called eagerly (on a concrete array, not a tracer) gammaln_cb computes with
jax.scipy.special.gammaln; under jit, vmap and grad it uses the callback. Every value is
right, and every compiled program is the reference's.

score: 9
messages:
  - The values of gammaln_cb called eagerly (without jit) do not come from its host callback
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if not isinstance(x, jax.core.Tracer):
        return jax.scipy.special.gammaln(x)
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(p, t):
    (x,), (xd,) = p, t
    return gammaln_cb(x), _cb(sps.digamma, x) * xd
