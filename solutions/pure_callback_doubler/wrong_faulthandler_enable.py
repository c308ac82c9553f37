"""Wrong: the host function turns on faulthandler on every call (to debug a crash): the
process then dumps tracebacks on fatal signals, with handlers of its own installed.

score: 9
messages:
  - changed state that outlives the call (faulthandler (faulthandler.enable)
"""
import faulthandler


def host_double(arr):
    faulthandler.enable()
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
