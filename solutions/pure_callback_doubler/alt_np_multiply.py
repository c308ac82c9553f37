"""Valid: np.multiply in the host function, the declaration built inline.

score: 10
"""
def host_double(arr):
    return np.multiply(np.asarray(arr), 2)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
