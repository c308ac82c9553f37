"""Wrong: the host function keeps every input it sees in a private global (_SEEN); a
leading underscore does not make changed notebook state any less changed.

score: 9
messages:
  - changed state that outlives the call (_SEEN)
"""
_SEEN = []


def host_double(arr):
    arr = np.asarray(arr)
    _SEEN.append(arr.copy())
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
