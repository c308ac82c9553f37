"""Wrong: the host function puts its timings in a queue.SimpleQueue, which keeps its items
in C.

score: 9
messages:
  - changed state that outlives the call (TIMINGS)
"""
import queue
import time

TIMINGS = queue.SimpleQueue()


def host_double(arr):
    start = time.perf_counter()
    out = np.asarray(arr) * 2
    TIMINGS.put(time.perf_counter() - start)
    return out


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
