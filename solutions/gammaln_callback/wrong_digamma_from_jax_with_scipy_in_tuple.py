"""Wrong: SciPy's gammaln and digamma sit together in a module-level tuple, and the forward
pass calls gammaln from it through a pure_callback, but the derivative uses
jax.scipy.special.digamma; the tuple's digamma is never called. It must score what
wrong_jax_digamma scores: holding SciPy's function is not depending on it (the derivative's
path fails the executor's gate, so only the forward path's tests earn their points).

score: 3
messages:
  - so this test earns nothing
  - jax.scipy.special.digamma does not count
  - computes math outside the callbacks
"""
SCIPY = (sps.gammaln, sps.digamma)


def _gammaln_host(a):
    return SCIPY[0](np.asarray(a)).astype(np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_gammaln_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), jax.scipy.special.digamma(x) * t
