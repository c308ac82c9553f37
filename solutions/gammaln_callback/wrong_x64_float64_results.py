"""Wrong: turns on jax_enable_x64 so that float64 results can be declared, keeping SciPy's
double precision; float32 input now gives float64 values and gradients. (9 before the
whole domain: where float32's gammaln overflows to inf, as the task says it must, the float64
values stay finite, so the forward callback test and the derivative test, through jax.jvp's
primal output, lose their points too.)

score: 7
messages:
  - has dtype float64, expected float32
  - where the reference is NaN or infinite
"""
jax.config.update("jax_enable_x64", True)


def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a, np.float64)),
                             jax.ShapeDtypeStruct(x.shape, np.float64), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
