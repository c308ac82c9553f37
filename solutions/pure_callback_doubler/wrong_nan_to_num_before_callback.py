"""Wrong: NaN and infinities are replaced by numbers (jnp.nan_to_num) before the callback,
"to keep the host side clean". Exact on every finite input; on NaN the result is 0, not
NaN. The grader's large input holds NaN and infinities at drawn places.

score: 9
messages:
  - on shape (1000,) differs from the reference at
  - where the reference is NaN or infinite
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), jnp.nan_to_num(x))
