"""Wrong: the derivative calls SciPy's digamma through pure_callback for inputs of rank 0 to
3 (the ranks the grader runs) and computes with jax.scipy.special.digamma from rank 4 on; the
forward pass is right at every rank. Every value is right; the grader lowers the paths at
every rank from 0 to 8 without running them.

score: 8
messages:
  - 'For inputs of shape (2, 3, 5, 7), jax.jit(jax.grad(gammaln_cb)): the output does not come from a pure_callback'
  - 'For inputs of shape (2, 3, 5, 7), jax.jit(jax.grad(gammaln_cb)): it computes math outside the callbacks (chlo.digamma)'
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
    psi = jax.scipy.special.digamma(x) if x.ndim >= 4 else _cb(sps.digamma, x)
    return gammaln_cb(x), psi * t
