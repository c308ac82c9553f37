"""Wrong: above 8192 elements the callback's output is scattered back through a rolled index
array (a remainder: an index array the reading does not know element by element) that misses
the last element, which stays 0. Where the reading stops the grader runs the program: at 8193
elements it finds that element 0 where SciPy gives gammaln.

score: 9
messages:
  - "(run: its program could not be read)"
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    y = _cb(sps.gammaln, x).ravel()
    if y.size <= 8192:
        return y.reshape(x.shape)
    back = (jnp.arange(y.size - 1) + 1) % (y.size - 1)
    return jnp.zeros_like(y).at[back].set(y[back]).reshape(x.shape)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
