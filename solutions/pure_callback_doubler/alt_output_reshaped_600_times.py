"""Valid: the callback's output reshaped 600 times, flat and back, before it is returned: a
chain of 1,200 layout operations. Every element is still the callback's, in its place; the
grader reads the program in one pass however long the chain (no recursion follows it).

score: 10
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    for _ in range(600):
        y = y.reshape(-1).reshape(x.shape)
    return y
