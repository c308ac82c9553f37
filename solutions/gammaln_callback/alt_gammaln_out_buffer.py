"""Valid: the host functions let SciPy's ufuncs write into a buffer they allocate, as NumPy
ufuncs allow: sps.gammaln(a, out=buf) in the forward pass, sps.digamma(a, buf) (out given
by position) in the derivative. The values are SciPy's, in float32, returned as the buffer.

score: 10
"""
def _host_gammaln(a):
    a = np.asarray(a)
    buf = np.empty_like(a)
    sps.gammaln(a, out=buf)
    return buf


def _host_digamma(a):
    a = np.asarray(a)
    buf = np.empty_like(a)
    sps.digamma(a, buf)
    return buf


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
