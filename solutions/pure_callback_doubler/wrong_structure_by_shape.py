"""Wrong: the callback for small inputs, where structure is usually inspected, and plain 2 * x
in jnp for large ones. Every number is right on every shape.

score: 8
messages:
  - holds 0 jax.pure_callback equations for an input of shape (1000,)
  - on shape (1000,) calls no jax.pure_callback
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if x.size > 100:
        return 2 * x
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
