"""Wrong: the forward output is minus the absolute value of the callback's result, so
log-gamma's positive values (everywhere but x between 1 and 2) come out negative. abs is
allowed around the callbacks where it guards (jnp.isinf(x) lowers to abs and compare); here it
changes values, which the value tests see (the core, the grader's own run of
jax.jit(gammaln_cb), with them).

score: 2
messages:
  - "The forward values: jax.jit(gammaln_cb) differs from the reference"
"""
def _scipy_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return -jnp.abs(_scipy_cb(sps.gammaln, x))


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * x_dot
