"""Wrong: the host function counts its calls in a ContextVar: context-local state that
outlives the call.

score: 9
messages:
  - changed state that outlives the call (the ContextVar 'doubler_calls'
"""
import contextvars

CALLS = contextvars.ContextVar("doubler_calls", default=0)


def host_double(arr):
    CALLS.set(CALLS.get() + 1)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
