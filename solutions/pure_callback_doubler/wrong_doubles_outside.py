"""Wrong: the callback only copies the input to NumPy; the doubling happens in JAX after it.

score: 8
messages:
  - computes on the pure_callback's output before returning it
"""
def pure_callback_doubler(x):
    copied = jax.pure_callback(np.asarray, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return copied * 2
