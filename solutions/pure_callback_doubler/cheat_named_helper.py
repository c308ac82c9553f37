"""Cheat: a jitted helper merely named pure_callback doubles in jnp; "pure_callback" appears
in str(jaxpr) and every number is right.

score: 3
messages:
  - pure_callback_doubler holds no jax.pure_callback
"""
@jax.jit
def pure_callback(x):
    return 2 * x


def pure_callback_doubler(x):
    return pure_callback(x)
