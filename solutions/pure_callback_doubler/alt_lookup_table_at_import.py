"""Valid: the host function reads a lookup table built once, when the cell ran (only read
afterwards).

score: 10
"""
FACTORS = {np.dtype(np.float32): np.float32(2), np.dtype(np.float64): np.float64(2)}


def host_double(arr):
    arr = np.asarray(arr)
    return arr * FACTORS[arr.dtype]


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
