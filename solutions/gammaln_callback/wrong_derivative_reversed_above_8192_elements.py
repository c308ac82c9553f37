"""Wrong: for inputs of more than 8192 elements digamma's values come back reversed before
they multiply the tangent: each gradient element is SciPy's digamma of another element.

score: 9
messages:
  - "For inputs of shape (8193,), jax.jit(jax.grad(gammaln_cb)): element (0,) of the output comes from element (8192,) of your input, not from element (0,)"
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = _cb(sps.digamma, x)
    return gammaln_cb(x), (jnp.flip(psi) if x.size > 8192 else psi) * t
