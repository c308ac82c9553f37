"""Wrong: the host function leaves the last value at zero when the input's length is a whole
multiple of 2^18, and doubles every value otherwise. Every program is the reference's at every
length (the branch is inside the host function). (Kept 10/10 until session 32: the lengths the
grader gave the host function were each side of 4096 and 2^16, and 3 * 4096; it now gives it
each side of every power of two up to 2^20 and three times each, shapes.HOST_LENGTHS.)

score: 9
messages:
  - "Your host function's result on a NumPy array of shape (262144,) given to it directly differs"
"""
def host_double(arr):
    out = np.asarray(arr) * 2
    if out.size and out.size % 2**18 == 0:
        out[-1] = 0
    return out


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
