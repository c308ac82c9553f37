"""Cheat: a jitted helper merely named pure_callback doubles in jnp; "pure_callback" appears
in str(jaxpr) and every number is right. Every test also needs the grader's own run of jax.jit(pure_callback_doubler) to return the pure_callback's output
(the tests that rest on what the notebook's process reports are gated on it), so it earns nothing.

score: 0
messages:
  - calls no jax.pure_callback
  - pure_callback_doubler holds no jax.pure_callback
"""
@jax.jit
def pure_callback(x):
    return 2 * x


def pure_callback_doubler(x):
    return pure_callback(x)
