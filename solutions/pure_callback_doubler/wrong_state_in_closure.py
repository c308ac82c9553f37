"""Wrong: the host function is a closure that counts its calls in a nonlocal variable; no
global changes, only the closure's cell does.

score: 9
messages:
  - changed state that outlives the call
"""
def _make_host():
    calls = 0

    def host_double(arr):
        nonlocal calls
        calls += 1
        return np.asarray(arr) * 2
    return host_double


host_double = _make_host()


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
