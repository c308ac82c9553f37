"""Valid: the host functions compute in float64 and return float64 without a cast; JAX
casts the result back to the declared float32 (nothing changes for the student).

score: 10
"""
def _scipy64(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a, dtype=np.float64)),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _scipy64(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _scipy64(sps.digamma, x) * t
