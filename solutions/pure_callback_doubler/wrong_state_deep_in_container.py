"""Wrong: the host function records each call's shape in a list kept deep inside a global
dict (in an object's attribute, in a list, in a dict of dicts). No global is rebound and the
list sits seven containers down, so only a comparison of the state at any depth sees it.

score: 9
messages:
  - changed state that outlives the call (LOG)
"""
import types

LOG = {"runs": {"doubler": [{"calls": types.SimpleNamespace(shapes=[[]])}]}}


def host_double(arr):
    arr = np.asarray(arr)
    LOG["runs"]["doubler"][0]["calls"].shapes[0].append(arr.shape)
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
