"""Valid: the reference answer with its host functions named (host_gammaln, host_digamma)
instead of one lambda: the source make mutants changes (a host function's body is where an
effect goes).

score: 10
"""
def host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def host_digamma(a):
    a = np.asarray(a)
    return sps.digamma(a).astype(a.dtype)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(host_gammaln, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    psi = jax.pure_callback(host_digamma, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * x_dot
