"""Valid: the host function logs at DEBUG level, which no handler prints (logging's default
level is WARNING): nothing is written, nothing changes.

score: 10
"""
import logging

log = logging.getLogger("doubler")


def host_double(arr):
    log.debug("doubling an array of shape %s", np.shape(arr))
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
