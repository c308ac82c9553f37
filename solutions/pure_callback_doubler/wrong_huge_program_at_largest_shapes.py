"""Wrong: at 2^30 elements and above (only the grader's largest abstract shapes) the result
passes through 3,000 layers of scalar host callbacks, so the program there holds thousands
of custom_calls. The grader reads each program under a time budget: those shapes lose the
every-shape points with a sentence, in seconds, and the value tests keep theirs.

score: 8
messages:
  - For inputs of shape (2^30,), jax.jit(pure_callback_doubler)
"""
def host_double(arr):
    return np.asarray(arr) * 2


def _scalar(v):
    return np.asarray(v)


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    if x.size >= 2**30:
        for _ in range(3000):
            y = y + 0 * jax.pure_callback(_scalar, jax.ShapeDtypeStruct((), x.dtype), y.ravel()[0])
    return y
