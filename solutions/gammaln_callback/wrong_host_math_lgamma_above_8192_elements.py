"""Wrong: the forward host function calls SciPy's gammaln up to 8192 elements and, above,
the standard library's math.lgamma element by element. The values agree to float32
precision at every size, and every program is the reference's at every shape: the branch
is inside the host function, where a lowering cannot see, and every input a program is run
on (71 x 71 at most) is smaller. The grader also calls each host function itself on
2^20 + 3 values with SciPy's gammaln poisoned on those values: these do not change.

score: 9
messages:
  - The forward callback
  - A host function of gammaln_cb, called directly on 1,048,579 values over the whole domain, does not take its values from scipy.special.gammaln
"""
import math


def _host_gammaln(a):
    a = np.asarray(a)
    if a.size > 8192:
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
