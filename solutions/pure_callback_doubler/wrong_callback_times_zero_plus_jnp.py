"""Wrong: a genuine pure_callback whose result is multiplied by zero, beside 2 * x in jnp
that really computes the answer. Every number is right, the program holds exactly one
pure_callback and the host function is pure NumPy; only where the result's values come from shows it. Every test also needs the grader's own run of jax.jit(pure_callback_doubler) to return the pure_callback's output
(the tests that rest on what the notebook's process reports are gated on it), so it earns nothing.

score: 0
messages:
  - does not take its result from the pure_callback
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    decoy = jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return decoy * 0 + 2 * x
