"""Wrong: the host function is a callable object that counts its calls in a class
attribute, and the class is not a notebook global (it is made inside a function), so only
the instance is reachable from the notebook. The state check walks an object's class too.

score: 9
messages:
  - changed state that outlives the call (the host function itself, _host
"""
def _make_host():
    class Doubler:
        calls = 0

        def __call__(self, arr):
            type(self).calls += 1
            return np.asarray(arr) * 2
    return Doubler()


_host = _make_host()


def pure_callback_doubler(x):
    return jax.pure_callback(_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
