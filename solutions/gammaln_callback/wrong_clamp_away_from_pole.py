"""Wrong: moves the argument away from the pole at 0 before each callback
(jnp.maximum(x, 1e-3), an op the "where the math happens" rule allows), so every value
from 1e-3 on is right and every value below it is gammaln(1e-3) and digamma(1e-3); the task's
domain goes down to 1.2e-38, and the grader draws there.

score: 7
messages:
  - jax.jit(gammaln_cb) on positive float32 inputs from 1.2e-38 to 3.4e38 differs from the reference
  - jax.jit(jax.grad(gammaln_cb)) on positive float32 inputs from 1.2e-38 to 3.4e38 differs from the reference
  - jax.grad(gammaln_cb) on positive float32 inputs from 1.2e-38 to 3.4e38, +inf and NaN differs from the reference
"""
def _cb(fn, x):
    x = jnp.maximum(x, 1e-3)   # "stay away from the pole"
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
