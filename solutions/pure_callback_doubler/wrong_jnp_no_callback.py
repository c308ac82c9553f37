"""Wrong: 2 * x in jnp, no callback at all; every number is right.

score: 3
messages:
  - pure_callback_doubler holds no jax.pure_callback
"""
def pure_callback_doubler(x):
    return 2 * x
