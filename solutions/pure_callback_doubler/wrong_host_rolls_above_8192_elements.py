"""Wrong: the host function doubles, but above 8192 elements it shifts the result by one place
(np.roll): the right values, each one position off. Every program is the reference's at every
shape and every input a program is run on is smaller; the grader's direct call of the host
function on 2^20 + 3 values compares element by element, so positions count.

score: 9
messages:
  - of 8,388,611 values given to it directly
  - differs from the reference arr * 2 at
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size > 8192:
        return np.roll(arr * 2, 1)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
