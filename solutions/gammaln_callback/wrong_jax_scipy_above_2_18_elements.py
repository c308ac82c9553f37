"""Wrong: calls SciPy through pure_callback up to 2^18 elements and computes with jax.scipy
above, in the forward pass and in the derivative: a branch on the size, decided while
tracing, beyond any size the grader runs. Every value is right at every size; the grader
lowers the paths at every size from 0 to 2^31 - 1 without running them.

score: 7
messages:
  - 'For inputs of shape (2^18 + 1,), jax.jit(gammaln_cb): the output is not the output of a pure_callback'
  - 'For inputs of shape (2^18 + 1,), jax.jit(jax.grad(gammaln_cb)): the output does not come from a pure_callback'
  - 'For inputs of shape (2^18 + 1,), jax.jit(gammaln_cb): it computes math outside the callbacks'
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if x.size > 2**18:
        return jax.scipy.special.gammaln(x)
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.scipy.special.digamma(x) if x.size > 2**18 else _cb(sps.digamma, x)
    return gammaln_cb(x), psi * t
