"""Wrong: the host function sets NumPy's ufunc buffer size, a process-wide setting (not
NumPy's error state or print options).

score: 9
messages:
  - changed state that outlives the call (NumPy's buffer size (np.setbufsize)
"""
def host_double(arr):
    np.setbufsize(16384)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
