"""Wrong: the host function draws from Python's random module (to decide nothing): the
result is right, but every call advances the process-wide random state.

score: 9
messages:
  - "changed state that outlives the call (Python's random state (random.seed))"
"""
import random


def host_double(arr):
    random.random()
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
