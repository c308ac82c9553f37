"""Wrong: for inputs of more than 8192 elements the forward values come back reversed. Each
value is SciPy's gammaln of an input value, through the pure_callback, only moved: where it
lands is wrong, past every size whose values a test checks (71 x 71 = 5041 at most).

score: 9
messages:
  - "For inputs of shape (8193,), jax.jit(gammaln_cb): element (0,) of the output comes from element (8192,) of your input, not from element (0,)"
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    y = _cb(sps.gammaln, x)
    return jnp.flip(y) if x.size > 8192 else y


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
