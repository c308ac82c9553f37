"""Wrong: the host functions return float32, except for an empty input, where they return
a float64 array. JAX never calls the host for an empty output (and would cast it silently
anyway), so only a direct call of the host function sees it.

score: 9
messages:
  - returns float64 where float32 is declared
  - empty
"""
def _host(fn):
    def host(a):
        a = np.asarray(a)
        if a.size == 0:
            return np.zeros(a.shape)                    # float64
        return fn(a).astype(np.float32)
    return host


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host(sps.gammaln), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host(sps.digamma), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
