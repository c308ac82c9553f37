"""Valid: the host function imports what it uses inside itself (an import caches the
module; it changes nothing the program could tell from a module imported beforehand).

score: 10
"""
def host_double(arr):
    import numpy
    import scipy.special  # noqa: F401  (imported, not used: harmless)
    return numpy.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
