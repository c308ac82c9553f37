"""Wrong: the host function counts its calls in a ctypes array, memory that Python's
objects do not show.

score: 9
messages:
  - changed state that outlives the call (COUNTER)
"""
import ctypes

COUNTER = (ctypes.c_long * 1)()


def host_double(arr):
    COUNTER[0] += 1
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
