"""Wrong: the derivative host function counts its calls in a module-level list, but only on
inputs of more than 8192 elements (the grader observes each call on small arrays). The two
worlds' comparison also calls every host function on a million values; the analogue of the
doubler's survivor of make mutants (effects/host_double/appends to a global list/size>1000).

score: 9
messages:
  - __main__.CALLS
"""
CALLS = []


def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    a = np.asarray(a)
    if a.size > 8192:
        CALLS.append(a.size)
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
