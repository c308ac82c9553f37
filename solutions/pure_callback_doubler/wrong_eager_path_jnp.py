"""Wrong: the callback only while tracing (jit, make_jaxpr), plain 2 * x in jnp when called
eagerly. Every number is right and every traced program holds the pure_callback; the eager
result does not come from the host function.

score: 9
messages:
  - pure_callback_doubler on shape (1,) calls no jax.pure_callback
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    if isinstance(x, jax.core.Tracer):
        return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return 2 * x
