"""Wrong: the host function counts its calls in a global list, but only on inputs whose length
is a whole multiple of 3 * 2^19 (1,572,864 values). (Kept 10/10 until session 32: the two
worlds' comparison called it on a million values and on lengths each side of 4096 and 2^16;
it now calls it on every length of shapes.HOST_LENGTHS, each side of every power of two up to
2^20 and three times each, and on 2^23 + 3 values.)

score: 9
messages:
  - __main__.CALLS
"""
CALLS = []


def host_double(arr):
    arr = np.asarray(arr)
    if arr.size and arr.size % (3 * 2**19) == 0:
        CALLS.append(arr.size)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
