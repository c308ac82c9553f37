"""Wrong: the forward host function prints the size of every batch it computes (a debugging
line left in). Everything else is the reference; the task asks the host functions to be pure,
and test_math_happens_in_the_host_functions watches each direct call of them.

score: 9
messages:
  - "Your host function writes output on every call: 'gammaln on"
"""
def _host_gammaln(a):
    a = np.asarray(a)
    print("gammaln on", a.size, "values")
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
