"""Valid: the host function writes into a scratch buffer of its own, made on each call and
returned.

score: 10
"""
def host_double(arr):
    arr = np.asarray(arr)
    out = np.empty_like(arr)
    np.multiply(arr, 2, out=out)
    return out


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
