"""Wrong: above 2^18 elements the JVP rule returns jax.scipy.special.gammaln(x) as its
primal output; jax.jit(gammaln_cb), the gradient (which never uses the rule's primal) and
the tangent use the callbacks at every size. Every value is right; only jax.jvp's primal
output, lowered at every shape without running, shows it.

score: 9
messages:
  - 'the primal output of jax.jvp(gammaln_cb): it is not the output of a pure_callback'
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
    y = jax.scipy.special.gammaln(x) if x.size > 2**18 else gammaln_cb(x)
    return y, _cb(sps.digamma, x) * t
