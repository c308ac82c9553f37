"""Valid: the input gathered through a reversed index array, the callback's output scattered
back through the same array into a buffer of zeros (every element written). The reading knows
the index array element by element (shared/indices.py) and follows the gather and the scatter
at every shape (it ran the program at every shape up to 2^21 elements before: 72-144 s).

score: 10
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    flat = x.ravel()
    back = jnp.arange(flat.size)[::-1]
    y = _cb(sps.gammaln, jnp.take(flat, back))
    return jnp.zeros_like(y).at[back].set(y).reshape(x.shape)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
