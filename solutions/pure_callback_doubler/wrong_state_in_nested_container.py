"""Wrong: the host function appends to a list held inside a global dict; the global itself is
never rebound, so only a deep comparison of the notebook's state sees the change.

score: 9
messages:
  - changed state that outlives the call (STATS)
"""
STATS = {"shapes": []}


def host_double(arr):
    arr = np.asarray(arr)
    STATS["shapes"].append(arr.shape)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
