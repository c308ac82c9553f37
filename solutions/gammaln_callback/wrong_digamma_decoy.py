"""Wrong: the JVP holds a pure_callback to SciPy's digamma, but multiplies its result by
zero; the derivative comes from jax.scipy.special.digamma beside it. Every gradient is
right and the callback is there. (Before the executor's gates: 8. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - so this test earns nothing
  - do not come from its pure_callback calls
  - computes math outside the callbacks
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
    psi = jax.scipy.special.digamma(x) + 0 * _cb(sps.digamma, x)
    return gammaln_cb(x), psi * t
