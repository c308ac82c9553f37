"""Valid: the host function silences the overflow warning with np.errstate as a context
manager, which restores NumPy's error state when the call ends.

score: 10
"""
def host_double(arr):
    with np.errstate(over="ignore"):
        return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
