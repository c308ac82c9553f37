"""Valid: a harmless copy of x (jnp.copy, and ravel of the copy) before the callback; the
result is still the callback's output.

score: 10
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    operand = jnp.ravel(jnp.copy(x))
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(operand.shape, operand.dtype), operand)
