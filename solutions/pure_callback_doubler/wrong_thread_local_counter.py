"""Wrong: the host function counts its calls on a threading.local: per-thread state that
outlives the call.

score: 9
messages:
  - changed state that outlives the call (STATS)
"""
import threading

STATS = threading.local()


def host_double(arr):
    STATS.calls = getattr(STATS, "calls", 0) + 1
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
