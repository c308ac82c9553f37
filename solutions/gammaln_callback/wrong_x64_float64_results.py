"""Wrong: turns on jax_enable_x64 so that float64 results can be declared, keeping SciPy's
double precision; every value is right, but float32 input now gives float64 values and
gradients.

score: 9
messages:
  - has dtype float64, expected float32
"""
jax.config.update("jax_enable_x64", True)


def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a, np.float64)),
                             jax.ShapeDtypeStruct(x.shape, np.float64), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
