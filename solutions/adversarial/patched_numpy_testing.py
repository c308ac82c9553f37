"""The wrong answer (triples) with every NumPy comparison the tests might use patched to
say "equal": numpy.testing, np.isclose, np.allclose, np.array_equal.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
import numpy.testing

for name in dir(numpy.testing):
    if name.startswith("assert_"):
        setattr(numpy.testing, name, lambda *args, **kwargs: None)
np.isclose = lambda a, b, *args, **kwargs: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, bool)
np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
