"""Valid: the answer lives in a module the notebook writes with %%writefile and imports, as
ordinary Jupyter practice (the notebook's folder is on sys.path there, and in the grader).

score: 10
"""
# The doubler is in helpers.py, written and imported by the next two cells.

# %%
%%writefile helpers.py
import jax
import numpy as np


def host_double(arr):
    arr = np.asarray(arr)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

# %%
from helpers import pure_callback_doubler
