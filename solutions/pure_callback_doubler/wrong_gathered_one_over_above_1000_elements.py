"""Wrong: the result gathered one place over (`y[(arange(n) + 1) % n]`) for inputs of more
than 1000 elements. Where a gather's indices point is computed at run time: the grader does
not follow positions through one, and says so.

score: 9
messages:
  - "For inputs of shape (1024,), jax.jit(pure_callback_doubler): where the elements of the output come from in your input cannot be followed (through stablehlo.gather)"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    if x.size > 1000:
        return y.reshape(-1)[(jnp.arange(x.size) + 1) % x.size].reshape(x.shape)
    return y
