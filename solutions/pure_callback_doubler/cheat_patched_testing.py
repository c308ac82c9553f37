"""Cheat: silences numpy.testing before an answer that triples instead of doubling. numpy.testing is outside the readable
subset (autograder/shared/readable.py), so the runner does not run the notebook.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it imports numpy.testing
"""
import numpy.testing
numpy.testing.assert_allclose = lambda *args, **kwargs: None
numpy.testing.assert_array_equal = lambda *args, **kwargs: None


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
