"""Valid: the callback runs on a reshaped operand (a (1, n) row, declared with that shape) and
its result is reshaped back; nothing is computed outside the host function.

score: 10
"""
def host_double(arr):
    arr = np.asarray(arr)
    return arr * 2


def pure_callback_doubler(x):
    row = jnp.reshape(x, (1, -1))
    doubled = jax.pure_callback(host_double, jax.ShapeDtypeStruct(row.shape, row.dtype), row)
    return doubled.reshape(x.shape)
