"""Wrong: the host function does its arithmetic in jnp, so it returns a jax.Array computed by
JAX, not NumPy; the numbers are right.

score: 9
messages:
  - not a NumPy array
"""
def host_double(arr):
    return jnp.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
