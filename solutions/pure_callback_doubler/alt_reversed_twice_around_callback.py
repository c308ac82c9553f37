"""Valid: the input reversed and transposed before the callback, the result moved back after
it: every element lands where its input was.

score: 10
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    moved = jnp.flip(x).T
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(moved.shape, moved.dtype), moved)
    return jnp.flip(y.T)
