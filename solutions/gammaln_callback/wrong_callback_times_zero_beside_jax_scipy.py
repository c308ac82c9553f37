"""Wrong: the forward pass holds a pure_callback to SciPy's gammaln, but its result is
multiplied by zero and the values come from jax.scipy.special.gammaln beside it. Every value
is right and the structure is there; the output just does not depend on the callback. (Before the executor's gates: 8. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.) (3 before the whole domain: where float32's gammaln
overflows, the callback's inf times zero is NaN, so the values are wrong there too, and the
derivative test loses its point on the primal output of jax.jvp.)

score: 2
messages:
  - so this test earns nothing
  - The values of jax.jit(gammaln_cb) do not come from its
  - computes math outside the callbacks
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x) * 0 + jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
