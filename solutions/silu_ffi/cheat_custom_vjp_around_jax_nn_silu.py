"""Cheat: no C++ at all; silu_ffi is a custom_vjp around jax.nn.silu with a jnp
backward. Every value in the chapter's self-check is right; only its custom_call
count would catch it.

score: 0
messages:
  - The lowering of jax.jit(silu_ffi) calls no registered FFI handler
  - jax.jit(silu_ffi) does not come from your FFI kernels, so there are no kernel values to check
"""
@jax.custom_vjp
def silu_ffi(x):
    return jax.nn.silu(x)


def _bwd(x, g):
    s = jax.nn.sigmoid(x)
    return (g * s * (1 + x * (1 - s)),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
