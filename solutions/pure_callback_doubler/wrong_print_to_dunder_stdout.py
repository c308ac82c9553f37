"""Wrong: the host function prints to sys.__stdout__, past any redirection of sys.stdout.

score: 9
messages:
  - Your host function prints
"""
import sys


def host_double(arr):
    arr = np.asarray(arr)
    print("doubling", arr.shape, file=sys.__stdout__)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
