"""Valid: the SciPy ufuncs are kept in module-level containers: the forward pass takes
gammaln from a tuple (FUNCTIONS[0]), the derivative takes digamma and its result type
from a dict of (function, dtype) tuples. Whatever holds them, they are SciPy's.

score: 10
"""
FUNCTIONS = (sps.gammaln, sps.digamma)
HOSTS = {"digamma": (sps.digamma, np.float32)}


def _host_gammaln(a):
    return FUNCTIONS[0](np.asarray(a)).astype(np.float32)


def _host_digamma(a):
    fn, dtype = HOSTS["digamma"]
    return fn(np.asarray(a)).astype(dtype)


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
