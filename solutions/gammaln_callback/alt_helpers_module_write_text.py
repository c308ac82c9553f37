"""Valid: the answer is written to a module with Path.write_text and imported from it, as
ordinary Jupyter practice (the notebook's folder is on sys.path there, and in the grader).

score: 10
"""
from pathlib import Path

Path("scipy_callbacks.py").write_text('''
import jax
import numpy as np
import scipy.special as sps


def _scipy_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * x_dot
''')

from scipy_callbacks import gammaln_cb
