"""Valid: the host function silences warnings with warnings.catch_warnings as a context
manager, which puts the filters back when the call ends.

score: 10
"""
import warnings


def host_double(arr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
