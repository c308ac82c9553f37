"""Wrong: the forward host function returns gammaln(x + 1) instead of gammaln(x) from rank 5
on. Every program is the reference's at every shape (the branch is inside the host
function), and the values tests run programs up to rank 4; the grader also calls the host
functions directly on an input of each rank from 2 to 8 (the analogue of the doubler's survivor of make
mutants, thresholds/host_double/2->3/rank>=5).

score: 9
messages:
  - called directly on an input of shape (11, 12, 13, 14, 15)
"""
def _host_gammaln(a):
    a = np.asarray(a)
    if a.ndim >= 5:
        return sps.gammaln(a + 1).astype(a.dtype)
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
