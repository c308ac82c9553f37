"""Wrong: returns the ShapeDtypeStruct declaration instead of the callback result; the
callback itself is right, but the function fails under jit and returns no values.

score: 5
messages:
  - not the ShapeDtypeStruct declaration
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    jax.pure_callback(host_double, out, x)
    return out
