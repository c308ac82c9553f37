"""Wrong: the forward values come from jax.scipy.special.gammaln; only the derivative goes
through a pure_callback to SciPy's digamma. (8 before issue 9: the compiled forward program
now also shows JAX's lgamma outside any callback.) (Before the executor's gates: 7. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - so this test earns nothing
  - gammaln_cb holds no jax.pure_callback
  - computes math outside the callbacks
"""
def _digamma_host(a):
    return sps.digamma(np.asarray(a)).astype(np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_digamma_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
