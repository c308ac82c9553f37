"""Wrong: the host function, in a module the notebook writes and imports, records every call
in that module's global list: the student's module is notebook state too.

score: 9
messages:
  - changed state that outlives the call (CALLS)
"""
# The host function is in helpers.py, written and imported by the next two cells.

# %%
%%writefile helpers.py
import numpy as np

CALLS = []


def host_double(arr):
    arr = np.asarray(arr)
    CALLS.append(arr.shape)
    return arr * 2

# %%
from helpers import host_double


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
