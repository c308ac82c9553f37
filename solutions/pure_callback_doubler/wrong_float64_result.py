"""Wrong: the host function computes in float64 and returns float64; JAX silently casts it
to the declared float32, so every number is right.

score: 9
messages:
  - has dtype float64, expected float32
"""
def host_double(arr):
    return np.asarray(arr, dtype=np.float64) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
