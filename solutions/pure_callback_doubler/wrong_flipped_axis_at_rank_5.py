"""Wrong: at rank 5 the result is flipped along its middle axis; values are checked at ranks
up to 4.

score: 9
messages:
  - "For inputs of shape (2, 3, 5, 7, 11), jax.jit(pure_callback_doubler): the output's element at (0, 0, 0, 0, 0) comes from your input's element at (0, 0, 4, 0, 0), not from the one at (0, 0, 0, 0, 0)"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return jnp.flip(y, 2) if x.ndim == 5 else y
