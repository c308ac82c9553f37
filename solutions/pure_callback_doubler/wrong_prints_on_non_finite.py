"""Wrong: the host function is silent on ordinary inputs and prints a warning only when its
input holds NaN or infinities. The grader watches the output of every call, on every input
it uses.

score: 9
messages:
  - Your host function prints or writes output
"""
def host_double(arr):
    arr = np.asarray(arr)
    if not np.all(np.isfinite(arr)):
        print("warning: non-finite input")
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
