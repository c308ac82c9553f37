"""Wrong: the host function silences NumPy's overflow warning with warnings.simplefilter,
which changes the warning filters for the whole process, for good (`with
warnings.catch_warnings():` around it, or `with np.errstate(over="ignore"):`, would have
kept it to the call).

score: 9
messages:
  - changed state that outlives the call (the warning filters (warnings.simplefilter)
"""
import warnings


def host_double(arr):
    warnings.simplefilter("ignore", RuntimeWarning)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
