"""Wrong: the derivative host function counts its calls in a ContextVar. Everything else is
the reference.

score: 9
messages:
  - "Your host function changes state that outlives the call (the ContextVar 'digamma_calls'"
"""
import contextvars

CALLS = contextvars.ContextVar("digamma_calls", default=0)


def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    CALLS.set(CALLS.get() + 1)
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
