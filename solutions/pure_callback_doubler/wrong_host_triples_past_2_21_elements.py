"""Wrong: the host function triples the values of inputs of more than 2^21 elements, and
doubles otherwise. Every program is the reference's at every length (the branch is inside the
host function). (Kept 10/10 until session 32: the largest input the grader gave the host
function had 2^20 + 3 values; it now gives it 2^23 + 3, shapes.HOST_LARGE.)

score: 9
messages:
  - "Your host function's result on a NumPy array of 8,388,611 values given to it directly"
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size > 2**21:
        return arr * 3
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
