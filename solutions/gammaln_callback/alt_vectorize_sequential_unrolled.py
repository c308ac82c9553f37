"""Valid: host functions built with np.vectorize around SciPy's scalar calls, one example at a
time with vmap_method="sequential_unrolled".

score: 10
"""
_gammaln_np = np.vectorize(lambda v: sps.gammaln(v), otypes=[np.float32])
_digamma_np = np.vectorize(lambda v: sps.digamma(v), otypes=[np.float32])


def _host(fn):
    return lambda a: np.asarray(fn(np.asarray(a)), dtype=np.float32)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host(_gammaln_np), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="sequential_unrolled")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host(_digamma_np), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="sequential_unrolled")
    return gammaln_cb(x), psi * t
