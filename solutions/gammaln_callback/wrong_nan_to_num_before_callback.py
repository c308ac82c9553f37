"""Wrong: replaces NaN and infinities with numbers before each callback (jnp.nan_to_num:
NaN becomes 0, +inf the largest float32), so every finite value is right, but gammaln_cb(nan)
is inf (gammaln(0)) instead of NaN, and the derivative is -inf at NaN and 88.7 at +inf where
SciPy gives NaN and inf; the task's domain includes NaN and +inf.

score: 8
messages:
  - gammaln_cb on NaN, +inf and positive float32 inputs from 1.2e-38 to 3.4e38 differs from the reference
  - where the reference is NaN or infinite
"""
def _cb(fn, x):
    x = jnp.nan_to_num(x)   # "keep the host function away from NaN and inf"
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
