"""Wrong: the derivative's host function returns digamma(x + 1) instead of digamma(x) for
inputs of rank 2 or more with more than 2^16 elements. Every program is the reference's at
every shape (the branch is inside the host function). (Kept 10/10 until session 32: the
grader called the host functions directly on 2^20 + 3 values in 1-d and, at ranks 3 to 8, on
inputs of 60 to 256 values; it now calls them on an input of each rank from 2 to 8 past 2^18
values, shapes.HOST_RANKED.)

score: 9
messages:
  - called directly on an input of shape (64, 4099)
"""
def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    a = np.asarray(a)
    if a.ndim >= 2 and a.size > 2**16:
        return sps.digamma(a + 1).astype(a.dtype)
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
