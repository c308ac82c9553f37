"""Wrong: the host function writes to file descriptor 1 with os.write, below Python's streams. The os module is outside the readable subset
(autograder/shared/readable.py), so the runner does not run the notebook; the purity test's
fd-level capture would have caught it too.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it imports os
"""
import os


def host_double(arr):
    os.write(1, b"doubling\n")
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
