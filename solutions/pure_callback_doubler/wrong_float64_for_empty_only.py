"""Wrong: float32 for every non-empty input, but a float64 array for an empty one. JAX never
calls the host function for an empty result, so pure_callback_doubler is right everywhere;
only calling the host function directly on an empty array shows the dtype.

score: 9
messages:
  - of shape (0,) has dtype float64, expected float32
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size == 0:
        return np.zeros(0)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
