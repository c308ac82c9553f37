"""Wrong: validates its input in the host function and raises on an empty array. JAX never
calls the host function for an empty result, so pure_callback_doubler itself returns shape
(0,) and only the host function's own behaviour shows the mistake.

score: 9
messages:
  - do not use a pure callback for input validation
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size == 0:
        raise ValueError("pure_callback_doubler needs a non-empty array")
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
