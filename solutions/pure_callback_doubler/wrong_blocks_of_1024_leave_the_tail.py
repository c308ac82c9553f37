"""Wrong: above 1024 values the callback runs on whole blocks of 1024 in a fori_loop that
writes each block into a buffer of zeros, and the tail past the last whole block is never
written: those elements stay zero. Every value test runs at most 1000 values; lengths that are
whole blocks are right. The grader follows every element of the output at every length: at
2^10 + 1 the last one comes from no element of the input. The program there is not the one
checked at (5,) (a loop), so the grader also runs it there: the last element is 0.

score: 8
messages:
  - "For inputs of shape (1025,), jax.jit(pure_callback_doubler): element (1024,) of the output comes from no element of your input"
  - "The pure_callback: jax.jit(pure_callback_doubler) on shape (1025,) differs from the reference at 1 of 1025 entries"
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    n = x.shape[0]
    declared = jax.ShapeDtypeStruct((1024,), x.dtype)
    if n <= 1024:
        return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    def block(i, out):
        piece = jax.lax.dynamic_slice_in_dim(x, i * 1024, 1024)
        return jax.lax.dynamic_update_slice_in_dim(out, jax.pure_callback(host_double, declared, piece), i * 1024, 0)
    return jax.lax.fori_loop(0, n // 1024, block, jnp.zeros_like(x))
