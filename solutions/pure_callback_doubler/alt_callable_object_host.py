"""Valid: the host function is an instance of a small class with __call__ (and __slots__):
jax.pure_callback takes any callable.

score: 10
"""
class Scale:
    __slots__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, arr):
        arr = np.asarray(arr)
        return arr * self.factor


host_double = Scale(2)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
