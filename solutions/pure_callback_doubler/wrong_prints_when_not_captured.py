"""Wrong: the host function prints, but only when its standard output is the process's
own (not replaced by a capture): a grader that swaps sys.stdout to watch it sees silence.

score: 9
messages:
  - Your host function prints or writes output
"""
import sys


def host_double(arr):
    if sys.stdout is sys.__stdout__:
        print("doubling", np.shape(arr))
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
