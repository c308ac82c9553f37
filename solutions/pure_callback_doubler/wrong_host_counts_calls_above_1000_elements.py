"""Wrong: the host function counts its calls in a global list, but only on inputs of more
than 1000 elements (the notebook's own inputs are small, and so are the inputs the grader
observes call by call); found by make mutants (effects/host_double/appends to a global
list/size>1000). The two worlds' comparison also calls it on a million values.

score: 9
messages:
  - __main__.CALLS
"""
CALLS = []


def host_double(arr):
    arr = np.asarray(arr)
    if arr.size > 1000:
        CALLS.append(arr.size)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
