"""Wrong: the host functions compute in float64 and return float64 without a cast. JAX
casts a callback's result to the declared float32 silently, so every value is right, but
the task says the host function returns exactly the declared dtype.

score: 9
messages:
  - returns float64 where float32 is declared
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
