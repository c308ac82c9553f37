"""The reference answer: the master notebook's solution cell, unchanged (the task's three
steps).

score: 10
"""
def host_double(arr):
    # BEGIN SOLUTION
    arr = np.asarray(arr)                 # a CPU jax.Array at run time: cross to NumPy explicitly
    return arr * 2
    # END SOLUTION


def pure_callback_doubler(x):
    # BEGIN SOLUTION
    result_shape = jax.ShapeDtypeStruct(x.shape, x.dtype)   # describes the result, not the input
    return jax.pure_callback(host_double, result_shape, x)
    # END SOLUTION
