"""Wrong: the callback up to 2^18 elements, twice the largest input an earlier grader ran;
plain JAX above. Every value it returns is right. The grader reads the program at every
size up to 2^31 - 1 elements without running it, so the first size past the threshold shows.

score: 8
messages:
  - 'For inputs of shape (2^18 + 1,), jax.jit(pure_callback_doubler): the program holds no jax.pure_callback'
  - 'For inputs of shape (2^18 + 1,), jax.jit(pure_callback_doubler): the pure_callback is not in the program'
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if x.size > 2**18:
        return 2 * x
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
