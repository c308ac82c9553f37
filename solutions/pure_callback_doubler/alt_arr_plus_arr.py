"""Valid: arr + arr instead of arr * 2, and the function jitted with a decorator.

score: 10
"""
def _host(arr):
    arr = np.asarray(arr)
    return arr + arr


@jax.jit
def pure_callback_doubler(x):
    return jax.pure_callback(_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
