"""Valid: the callbacks receive the input flattened (x.ravel()) and their results are
reshaped back to x's shape in JAX; reshapes around a callback are allowed.

score: 10
"""
def _flat_cb(fn, x):
    flat = jnp.ravel(x)
    out = jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                            jax.ShapeDtypeStruct(flat.shape, flat.dtype), flat,
                            vmap_method="expand_dims")
    return out.reshape(jnp.shape(x))


@jax.custom_jvp
def gammaln_cb(x):
    return _flat_cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _flat_cb(sps.digamma, x) * t
