"""Wrong: 2 * x in jnp, no callback at all; every number is right. Every test also needs the grader's own run of jax.jit(pure_callback_doubler) to return the pure_callback's output
(the tests that rest on what the notebook's process reports are gated on it), so it earns nothing.

score: 0
messages:
  - calls no jax.pure_callback
  - pure_callback_doubler holds no jax.pure_callback
"""
def pure_callback_doubler(x):
    return 2 * x
