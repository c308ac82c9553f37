"""Valid: the host function reads module-level constants (the factor and the dtype) and
allocates a fresh output array on every call.

score: 10
"""
FACTOR = np.float32(2)
DTYPE = np.float32


def host_double(arr):
    arr = np.asarray(arr, dtype=DTYPE)
    out = np.empty_like(arr)
    np.multiply(arr, FACTOR, out=out)
    return out


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
