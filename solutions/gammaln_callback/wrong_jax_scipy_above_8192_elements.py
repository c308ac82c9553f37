"""Wrong: calls SciPy through pure_callback up to 8192 elements, a little more than the
largest input the grader draws (71 x 71 = 5041), and computes with jax.scipy above, in the
forward pass and in the derivative. Every value is right at every size. (Caught until issue
37 by runs on 16384 elements; now the grader lowers the paths at every size from 0 to
2^31 - 1 without running them, and names the first size past the threshold.)

score: 7
messages:
  - 'For inputs of shape (8193,), jax.jit(gammaln_cb): the output is not the output of a pure_callback'
  - 'For inputs of shape (8193,), jax.jit(jax.grad(gammaln_cb)): the output does not come from a pure_callback'
  - 'For inputs of shape (8193,), jax.jit(gammaln_cb): it computes math outside the callbacks'
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if x.size <= 8192:
        return _cb(sps.gammaln, x)
    return jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = _cb(sps.digamma, x) if x.size <= 8192 else jax.scipy.special.digamma(x)
    return gammaln_cb(x), psi * t
