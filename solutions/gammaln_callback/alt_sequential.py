"""Valid: one example at a time (vmap_method="sequential"), two named host functions that
cast to float32 explicitly.

score: 10
"""
def host_gammaln(a):
    return sps.gammaln(np.asarray(a)).astype(np.float32)


def host_digamma(a):
    return sps.digamma(np.asarray(a)).astype(np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(host_gammaln, jax.ShapeDtypeStruct(x.shape, jnp.float32), x,
                             vmap_method="sequential")


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    psi = jax.pure_callback(host_digamma, jax.ShapeDtypeStruct(x.shape, jnp.float32), x,
                            vmap_method="sequential")
    return gammaln_cb(x), psi * x_dot
