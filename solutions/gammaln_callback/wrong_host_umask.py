"""Wrong: the derivative host function sets the process's umask on every call. Everything
else is the reference.

score: 9
messages:
  - "Your host function changes state that outlives the call (the process's umask (os.umask))"
"""
import os


def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    os.umask(0o077)
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
