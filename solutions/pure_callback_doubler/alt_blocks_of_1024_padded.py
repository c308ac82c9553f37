"""Valid: the input flattened, padded to whole blocks of 1024 and handed to the callback as
(blocks, 1024); the padding cut off and the shape restored after it.

score: 10
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    flat = x.reshape(-1)
    blocks = jnp.pad(flat, (0, -flat.size % 1024)).reshape(-1, 1024)
    y = jax.pure_callback(host_double, jax.ShapeDtypeStruct(blocks.shape, blocks.dtype), blocks)
    return y.reshape(-1)[:flat.size].reshape(x.shape)
