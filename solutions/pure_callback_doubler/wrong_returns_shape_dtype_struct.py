"""Wrong: returns the ShapeDtypeStruct declaration instead of the callback result; the
callback itself is right, but the function fails under jit and returns no values. Every test also needs the grader's own run of jax.jit(pure_callback_doubler) to return the pure_callback's output
(the tests that rest on what the notebook's process reports are gated on it), so it earns nothing.

score: 0
messages:
  - not the ShapeDtypeStruct declaration
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    jax.pure_callback(host_double, out, x)
    return out
