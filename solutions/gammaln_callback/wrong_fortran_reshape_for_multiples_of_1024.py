"""Wrong: for 1-d lengths that are multiples of 1024, calls SciPy on the input reshaped to
rows of 1024 and reads the result back in Fortran order, so the values land at transposed
positions (every value is some element's gammaln, at the wrong place). Every other length,
and every rank, is right. (Kept 10/10 until session 32: the grader lowered the jitted forward
pass at 2^k + 1 elements only, and no odd length is a multiple of 1024; it now lowers every
power of two and three times each as well.)

score: 9
messages:
  - 'For inputs of shape (2048,), jax.jit(gammaln_cb): element (1,) of the output comes from element (1024,) of your input'
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if x.ndim == 1 and x.size and x.size % 1024 == 0:
        return _cb(sps.gammaln, x.reshape(-1, 1024)).reshape(-1, order="F")
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
