"""Wrong: the host function of the forward callback computes with JAX on the host
(jax.scipy.special.gammaln, converted back to NumPy) instead of SciPy's gammaln. (Before the executor's gates: 8. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - so this test earns nothing
  - do not depend on scipy.special.gammaln
  - runs JAX code
"""
def _host_gammaln(a):
    return np.asarray(jax.scipy.special.gammaln(np.asarray(a)), dtype=np.float32)


def _host_digamma(a):
    return sps.digamma(np.asarray(a)).astype(np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host_gammaln, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host_digamma, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
