"""Wrong: the host function counts its calls in an attribute set on itself.

score: 9
messages:
  - changed state that outlives the call (the host function itself
"""
def host_double(arr):
    host_double.calls += 1
    return np.asarray(arr) * 2


host_double.calls = 0


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
