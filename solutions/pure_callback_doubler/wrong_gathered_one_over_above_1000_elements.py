"""Wrong: the result gathered one place over (`y[(arange(n) + 1) % n]`) for inputs of more
than 1000 elements. Where a gather's indices point is computed at run time: the grader does
not follow positions through one, so it runs the program at that length instead (up to
proofs.RUN_ELEMENTS), and the result there is not x doubled.

score: 9
messages:
  - "The callback result: jax.jit(pure_callback_doubler) on shape (1024,) differs from the reference at 1024 of 1024 entries"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    if x.size > 1000:
        return y.reshape(-1)[(jnp.arange(x.size) + 1) % x.size].reshape(x.shape)
    return y
