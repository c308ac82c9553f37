"""Valid: one host function returns (gammaln, digamma) as a tuple, declared with a tuple of
two ShapeDtypeStructs; the forward pass keeps the first, the JVP uses both.

score: 10
"""
def _both(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype), sps.digamma(a).astype(a.dtype)


def _gammaln_and_digamma(x):
    sds = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(_both, (sds, sds), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _gammaln_and_digamma(x)[0]


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    y, psi = _gammaln_and_digamma(x)
    return y, psi * x_dot
