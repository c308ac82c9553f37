"""Cheat: a jitted helper merely named pure_callback computes jax.scipy's gammaln, and the
JVP uses jax.scipy's digamma: no host callback at all, yet "pure_callback" appears in
str(jaxpr) and every number is right, so the chapter's self-check passes. (6 before issue 9;
the compiled programs now also show JAX's lgamma and digamma outside any callback.) (Before the executor's gates: 5. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled programs, and none of them gives SciPy's
values through callbacks, so nothing is earned.)

score: 0
messages:
  - so this test earns nothing
  - gammaln_cb holds no jax.pure_callback
  - do not come from its pure_callback calls
  - computes math outside the callbacks
"""
@jax.jit
def pure_callback(x):
    return jax.scipy.special.gammaln(x)


@jax.custom_jvp
def gammaln_cb(x):
    return pure_callback(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), jax.scipy.special.digamma(x) * t
