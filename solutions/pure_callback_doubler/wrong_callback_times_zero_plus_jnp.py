"""Wrong: a genuine pure_callback whose result is multiplied by zero, beside 2 * x in jnp
that really computes the answer. Every number is right, the program holds exactly one
pure_callback and the host function is pure NumPy; only the result's provenance shows it.

score: 9
messages:
  - does not take its result from the pure_callback
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    decoy = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return decoy * 0 + 2 * x
