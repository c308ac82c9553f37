"""Wrong: the host function counts its calls through globals(), a name its code never
spells as a global: the purity check follows such routes to every global.

score: 9
messages:
  - changed state that outlives the call (_calls)
"""
_calls = 0


def host_double(arr):
    globals()["_calls"] += 1
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
