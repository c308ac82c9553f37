"""Wrong: the host function sets SciPy's error state on every call, to the value it already
holds by default ("ignore"): a before/after comparison sees nothing, yet a later cell that
asked scipy.special to warn finds it silenced.

score: 9
messages:
  - changed state that outlives the call (SciPy's error state (scipy.special.seterr))
"""
import scipy.special


def host_double(arr):
    scipy.special.seterr(all="ignore")
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
