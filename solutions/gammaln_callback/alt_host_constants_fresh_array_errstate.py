"""Valid: host functions that read module-level constants (the output dtype, a tuple of
SciPy's functions), allocate a fresh array for their result, and silence NumPy's warnings with
np.errstate as a context manager (put back on leaving): pure, as the task asks.

score: 10
"""
OUT_DTYPE = np.float32
FUNCTIONS = {"gammaln": sps.gammaln, "digamma": sps.digamma}


def _host(name):
    def host(a):
        a = np.asarray(a)
        out = np.zeros(a.shape, dtype=OUT_DTYPE)
        with np.errstate(all="ignore"):
            out[...] = FUNCTIONS[name](a.astype(np.float64))
        return out
    return host


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host("gammaln"), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host("digamma"), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
