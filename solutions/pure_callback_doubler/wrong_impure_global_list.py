"""Wrong: the host function records every call in a global list (mutates module state).

score: 9
messages:
  - changed state that outlives the call (CALLS)
"""
CALLS = []


def host_double(arr):
    arr = np.asarray(arr)
    CALLS.append(arr.shape)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
