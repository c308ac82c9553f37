"""Wrong: the host function sets the process's umask on every call (to keep the files it
never writes private): every file the rest of the program creates afterwards gets other
permissions.

score: 9
messages:
  - changed state that outlives the call (the process's umask (os.umask))
"""
import os


def host_double(arr):
    os.umask(0o077)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
