"""Wrong: the callback only copies the input to NumPy; the doubling happens in JAX after it. Every test also needs the grader's own run of jax.jit(pure_callback_doubler) to return the pure_callback's output
(the tests that rest on what the notebook's process reports are gated on it), so it earns nothing.

score: 0
messages:
  - computes on the pure_callback's output before returning it
"""
def pure_callback_doubler(x):
    copied = jax.pure_callback(np.asarray, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return copied * 2
