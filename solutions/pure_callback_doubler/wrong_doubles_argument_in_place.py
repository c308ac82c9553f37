"""Wrong: the host function doubles its argument in place when it may write into it (a
writable NumPy array), and returns it: a second call on the same array gives 4x.

score: 9
messages:
  - "Your host function changed the NumPy array it was given"
"""
def host_double(arr):
    if isinstance(arr, np.ndarray) and arr.flags.writeable:
        arr *= 2
        return arr
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
