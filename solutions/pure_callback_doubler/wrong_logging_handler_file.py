"""Wrong: the host function logs a line on every call through a logging handler whose
file the cell opened: nothing is opened during the call and nothing reaches fd 1 or 2, but
bytes are written to a file the process holds open.

score: 9
messages:
  - "Your host function writes to a file on every call: it wrote"
  - doubler_calls.log
"""
import logging

_log = logging.getLogger("doubler")
_log.propagate = False
_log.setLevel(logging.INFO)
_log.addHandler(logging.FileHandler("doubler_calls.log"))
_log.info("doubler ready")


def host_double(arr):
    arr = np.asarray(arr)
    _log.info("doubling %s", arr.shape)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
