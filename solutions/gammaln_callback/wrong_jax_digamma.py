"""Wrong: the forward pass calls SciPy through a pure_callback, but the derivative uses
jax.scipy.special.digamma instead of SciPy's digamma through a callback. Every value and
gradient is right, which is why the chapter's self-check passes it. (9 before issue 9: the
gradient's compiled program now also shows digamma computed in JAX, outside the callbacks.) (Before the executor's gates: 8. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - so this test earns nothing
  - jax.scipy.special.digamma does not count
  - computes math outside the callbacks
"""
def _gammaln_host(a):
    return sps.gammaln(np.asarray(a)).astype(np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_gammaln_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), jax.scipy.special.digamma(x) * t
