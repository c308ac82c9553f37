"""Valid: a harmless copy of the input (jnp.array(x, copy=True)) before each callback, and
the host copies its input again with np.array before calling SciPy.

score: 10
"""
def _cb(fn, x):
    x = jnp.array(x, copy=True)
    return jax.pure_callback(lambda a: fn(np.array(a, copy=True)).astype(np.float32),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="broadcast_all")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
