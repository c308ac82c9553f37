"""Wrong: the forward host function calls SciPy's gammaln for inputs of rank 0 to 3 and, from
rank 4 on, the standard library's math.lgamma element by element. The values agree to
float32 precision at every rank, so checking values alone at ranks 2 to 8 cannot see it
(issue 55: SciPy's poison ran in 1-d only). The grader calls each host function itself on an
input of each rank from 2 to 8 (past 2^18 values each) with SciPy's gammaln poisoned on that
input's values: at rank 4, (21, 23, 25, 27), nothing changes.

score: 9
messages:
  - The forward callback
  - A host function of gammaln_cb, called directly on an input of shape (21, 23, 25, 27), does not take its values from scipy.special.gammaln
  - at x[(0, 0, 0, 0)]
"""
import math


def _host_gammaln(a):
    a = np.asarray(a)
    if a.ndim >= 4:
        with np.errstate(over="ignore"):
            return np.array([math.lgamma(v) for v in a.ravel().tolist()]).astype(a.dtype).reshape(a.shape)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    a = np.asarray(a)
    return sps.digamma(a).astype(a.dtype)


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
