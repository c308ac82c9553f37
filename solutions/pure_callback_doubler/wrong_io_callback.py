"""Wrong: io_callback (meant for side effects) instead of pure_callback; the host function
itself is fine. The exercise's core is the result returned through jax.pure_callback: every
test presupposes it, so the right numbers earn nothing.

score: 0
messages:
  - calls no jax.pure_callback (io_callback, a callback with side effects, is not one)
  - pure_callback_doubler holds no jax.pure_callback
  - pure_callback_doubler uses io_callback
"""
from jax.experimental import io_callback


def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return io_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
