"""Wrong: the JVP returns digamma(x) without multiplying it by the input tangent. JAX raises
nothing: a tangent output that does not depend on the input tangent is a constant, so every
gradient is silently zero. (7 before issue 9: a zero gradient also does not come from
SciPy's digamma, which the derivative-callback test now checks on the gradient itself.) (Before the executor's gates: 6. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - The gradient of gammaln_cb differs from the reference
  - digamma(x) times the input tangent (x_dot)
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
    return gammaln_cb(x), _cb(sps.digamma, x)
