"""Wrong: the host function sets an environment variable on every call, to the same value
each time, so that no comparison of before and after sees it once the notebook has called it;
found by make mutants (effects/host_double/sets an environment variable/size>0). The write
itself is seen (Python's audit event os.putenv), whatever value it writes.

score: 9
messages:
  - set environment variables (os.putenv)
"""
import os


def host_double(arr):
    os.environ["DOUBLER_BACKEND"] = "numpy"
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
