"""Wrong: the forward host function takes its function from a module-level tuple of
(name, function) pairs, but the pair it uses holds math.lgamma (through np.vectorize), not
SciPy's gammaln, which sits unused in the other pair. It must score what
wrong_host_math_lgamma scores: the poison reaches SciPy's gammaln inside the tuple, the
values do not change, and the forward path fails the executor's gate.

score: 3
messages:
  - so this test earns nothing
  - do not depend on scipy.special.gammaln
"""
import math

LOG_GAMMAS = (("scipy", sps.gammaln), ("stdlib", np.vectorize(math.lgamma, otypes=[np.float64])))


def _host_gammaln(a):
    return LOG_GAMMAS[1][1](np.asarray(a)).astype(np.float32)


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
