"""Wrong: the host function prints to sys.__stdout__, past any redirection of sys.stdout. The sys module is outside the readable
subset (autograder/shared/readable.py), so the runner does not run the notebook; the purity
test's fd-level capture would have caught it too.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it imports sys
"""
import sys


def host_double(arr):
    arr = np.asarray(arr)
    print("doubling", arr.shape, file=sys.__stdout__)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
