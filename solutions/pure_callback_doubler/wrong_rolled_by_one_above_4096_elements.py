"""Wrong: the result rolled by one place (jnp.roll: two slices and a concatenate) for inputs
of more than 4096 elements, past every size whose values a test checks.

score: 9
messages:
  - "For inputs of shape (4097,), jax.jit(pure_callback_doubler): element (0,) of the output comes from element (4096,) of your input, not from element (0,)"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return jnp.roll(y, 1) if x.size > 4096 else y
