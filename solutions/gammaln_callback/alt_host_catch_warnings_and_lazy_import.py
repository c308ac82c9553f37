"""Valid: the host functions import scipy.special inside themselves and silence warnings with
warnings.catch_warnings as a context manager: nothing outlives the call.

score: 10
"""
import warnings


def _host(name):
    def host(a):
        import scipy.special
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.asarray(a)
            return getattr(scipy.special, name)(a).astype(a.dtype)
    return host


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host("gammaln"), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host("digamma"), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
