"""The wrong answer (triples), then sys.exit(0) in the middle of the cell, hoping the grader
stops early and keeps the points of the tests that did not run.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
import sys


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


sys.exit(0)
