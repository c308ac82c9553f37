"""Wrong: above 8192 elements the callback's output is scattered back through a reversed index
array that misses the last element, which stays 0. The reading knows the index array element by
element (shared/indices.py) and names that element at 8193 elements (the program was run there
before, and the run found it).

score: 9
messages:
  - "For inputs of shape (8193,), jax.jit(gammaln_cb): element (8192,) of the output comes from no element of your input"
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    y = _cb(sps.gammaln, x).ravel()
    if y.size <= 8192:
        return y.reshape(x.shape)
    back = jnp.arange(y.size - 1)[::-1]
    return jnp.zeros_like(y).at[back].set(y[back]).reshape(x.shape)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
