"""Valid: SciPy's functions imported under other names (from scipy.special import gammaln
as G, digamma as D); the forward host function is a functools.partial holding G, the
derivative's is an np.vectorize of D, one element at a time.

score: 10
"""
import functools
from scipy.special import gammaln as G, digamma as D


def _host(fn, a, *, dtype):
    return fn(np.asarray(a)).astype(dtype)


_host_gammaln = functools.partial(_host, G, dtype=np.float32)
_digamma_each = np.vectorize(D, otypes=[np.float32])


def _host_digamma(a):
    return _digamma_each(np.asarray(a))


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host_gammaln, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="sequential")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host_digamma, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="sequential")
    return gammaln_cb(x), psi * t
