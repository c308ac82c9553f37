"""Wrong: the callback for small inputs, where structure is usually inspected, and plain 2 * x
in jnp for large ones. Every number is right on every shape.

score: 8
messages:
  - 'For inputs of shape (128,), jax.jit(pure_callback_doubler): the program holds no jax.pure_callback'
  - on shape (1000,) calls no jax.pure_callback
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if x.size > 100:
        return 2 * x
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
