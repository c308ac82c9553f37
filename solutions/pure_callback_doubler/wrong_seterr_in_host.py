"""Wrong: the host function silences NumPy's overflow warning with np.seterr, which changes
NumPy's error state for the whole process, for good (`with np.errstate(over="ignore"):`
would have kept it to the call).

score: 9
messages:
  - changed state that outlives the call (NumPy's error state (np.seterr)
"""
def host_double(arr):
    np.seterr(over="ignore")          # 3e38 * 2 overflows: keep quiet about it
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
