"""Wrong: the forward host function counts its calls in a module-level list, but only on
inputs of rank 5 or more (the grader observes each call on small arrays of rank 1 to 3, and
the two worlds' comparison called them on a million values, 1-D, and now also on an input
of each rank from 3 to 8); found by make mutants (effects/host_gammaln/appends to a global
list/rank>=5).

score: 9
messages:
  - __main__.CALLS
"""
CALLS = []


def _host_gammaln(a):
    a = np.asarray(a)
    if a.ndim >= 5:
        CALLS.append(a.ndim)
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
