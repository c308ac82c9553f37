"""Wrong: plain JAX for inputs of rank 5, a rank no test feeds it; the callback otherwise.
The grader lowers the program at every rank from 0 to 8 (the smallest rank-5 shape it
tries is all ones).

score: 8
messages:
  - 'For inputs of shape (1, 1, 1, 1, 1), jax.jit(pure_callback_doubler): the program holds no jax.pure_callback'
  - 'For inputs of shape (1, 1, 1, 1, 1), jax.jit(pure_callback_doubler): the pure_callback is not in the program'
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if x.ndim == 5:
        return x + x
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
