"""Wrong: the host function sets the decimal context's precision on every call, to the
default 28: the same value as before in a before/after comparison, yet a cell that set
another precision finds it reset.

score: 9
messages:
  - changed state that outlives the call (
  - the decimal context (decimal.getcontext())
"""
import decimal


def host_double(arr):
    decimal.getcontext().prec = 28
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
