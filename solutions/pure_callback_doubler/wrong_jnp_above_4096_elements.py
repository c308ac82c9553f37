"""Wrong: the callback for up to 4096 elements, a little above the sizes a test would
likely try; plain JAX above. The grader reads the program at every size up to 2^31 - 1
elements without running it: the first size past 4096 shows.

score: 8
messages:
  - 'For inputs of shape (4097,), jax.jit(pure_callback_doubler): the program holds no jax.pure_callback'
  - 'For inputs of shape (4097,), jax.jit(pure_callback_doubler): the pure_callback is not in the program'
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if x.size > 4096:
        return 2 * x
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
