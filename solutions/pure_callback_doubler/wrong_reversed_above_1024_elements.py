"""Wrong: the doubled values come back reversed (`y[::-1]`) for inputs of more than 1024
elements, past every size whose values a test checks. Each value is a doubled input value and
the program is the callback's output, only moved; where each element lands is what is wrong,
and the grader follows positions through the program at every size.

score: 9
messages:
  - "For inputs of shape (1025,), jax.jit(pure_callback_doubler): element (0,) of the output comes from element (1024,) of your input, not from element (0,)"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y[::-1] if x.size > 1024 else y
