"""Wrong: no callback at all. gammaln_cb is a custom_jvp of jax.scipy.special.gammaln with
jax.scipy.special.digamma as its derivative: every value and gradient is right, under jit,
vmap and grad, but none comes from SciPy through a callback, so no test earns anything.

score: 0
messages:
  - so this test earns nothing
  - gammaln_cb holds no jax.pure_callback
"""
@jax.custom_jvp
def gammaln_cb(x):
    return jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), jax.scipy.special.digamma(x) * t
