"""Valid: the callback on the flattened input inside a nested jax.jit, reshaped back; 0-d
inputs take the same path (a reshape to (1,) and back). Layout operations around the callback
are fine at every shape.

score: 10
"""
def host_double(arr):
    return np.asarray(arr) * 2


@jax.jit
def _flat_double(flat):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(flat.shape, flat.dtype), flat)


def pure_callback_doubler(x):
    return _flat_double(x.reshape(-1)).reshape(x.shape)
