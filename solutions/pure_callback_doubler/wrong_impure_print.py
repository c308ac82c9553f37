"""Wrong: the host function prints (a side effect in a pure callback).

score: 9
messages:
  - Your host function prints
"""
def host_double(arr):
    arr = np.asarray(arr)
    print("doubling", arr.shape)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
