"""Wrong: the host function doubles with jnp and converts the result back with np.asarray, so
it returns a float32 np.ndarray with the right values, but the arithmetic is JAX's, not NumPy's.

score: 9
messages:
  - Your host function ran JAX code when called on a NumPy array
"""
def host_double(arr):
    return np.asarray(jnp.asarray(arr) * 2)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
