"""Wrong: the host function writes to file descriptor 1 with os.write, below Python's streams.

score: 9
messages:
  - Your host function prints
"""
import os


def host_double(arr):
    os.write(1, b"doubling\n")
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
