"""Cheat: redefines the public custom_reduce_sum with jnp.sum and registers no rule; every
numeric check of the self-check passes.

score: 0
messages:
  - custom_reduce_sum no longer binds custom_reduce_sum_p
  - has no JVP rule and no transpose rule and no batching rule registered
"""
def custom_reduce_sum(x, axis):
    return jnp.sum(x, axis=axis)
