"""Wrong: the host function counts its calls with an itertools.count, a C object whose
count no attribute shows (its repr does: count(7)).

score: 9
messages:
  - changed state that outlives the call (_CALLS)
"""
import itertools

_CALLS = itertools.count()


def host_double(arr):
    next(_CALLS)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
