"""Wrong: the derivative host function sets SciPy's error state on every call, to the value it
already holds by default ("ignore"): a before/after comparison sees nothing, yet a later cell
that asked scipy.special to warn finds it silenced. Everything else is the reference.

score: 9
messages:
  - "Your host function changes state that outlives the call (SciPy's error state (scipy.special.seterr))"
"""
def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    sps.seterr(all="ignore")
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
