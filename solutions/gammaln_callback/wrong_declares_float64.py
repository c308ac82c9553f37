"""Wrong: declares float64 results to keep SciPy's precision; with jax_enable_x64 off,
pure_callback refuses a 64-bit ShapeDtypeStruct, so nothing runs.

score: 0
messages:
  - result_shape_dtypes cannot specify 64-bit types
"""
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
