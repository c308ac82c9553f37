"""Wrong: called eagerly (on a concrete array, not a tracer) gammaln_cb calls SciPy's
gammaln directly and wraps the result with jnp.asarray, with no pure_callback; under jit,
vmap and grad it uses the callback. Every value is right and comes from SciPy, but not
through jax.pure_callback on the eager path.

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
        return jnp.asarray(sps.gammaln(np.asarray(x)).astype(np.float32))
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
