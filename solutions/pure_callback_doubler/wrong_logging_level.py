"""Wrong: the host function changes logging's configuration (the root logger's level), a
process-wide setting.

score: 9
messages:
  - "changed state that outlives the call (logging's configuration"
"""
import logging


def host_double(arr):
    logging.getLogger().setLevel(logging.ERROR)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
