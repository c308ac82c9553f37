"""Wrong: at rank 5 the result is flipped along its middle axis; values are checked at ranks
up to 4.

score: 9
messages:
  - "For inputs of shape (2, 3, 5, 7, 11), jax.jit(pure_callback_doubler): element (0, 0, 0, 0, 0) of the output comes from element (0, 0, 4, 0, 0) of your input, not from element (0, 0, 0, 0, 0)"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return jnp.flip(y, 2) if x.ndim == 5 else y
