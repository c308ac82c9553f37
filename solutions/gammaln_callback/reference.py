"""The reference answer: the master notebook's solution cell, unchanged (the chapter's
appendix solution of Exercise 2).

score: 10
"""
def _scipy_cb(fn, x):
    # BEGIN SOLUTION
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")       # SciPy ufuncs handle any shape
    # END SOLUTION


@jax.custom_jvp
def gammaln_cb(x):
    # BEGIN SOLUTION
    return _scipy_cb(sps.gammaln, x)
    # END SOLUTION


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    # BEGIN SOLUTION
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * x_dot
    # END SOLUTION
