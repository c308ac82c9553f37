"""Valid: the SciPy ufuncs themselves are the host functions (they accept jax.Arrays and
NumPy arrays and keep float32), batched with vmap_method="legacy_vectorized".

score: 10
"""
@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(sps.gammaln, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="legacy_vectorized")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(sps.digamma, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="legacy_vectorized")
    return gammaln_cb(x), psi * t
