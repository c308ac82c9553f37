"""Wrong: no C++ at all; both passes go through jax.pure_callback with NumPy. The
chapter's self-check passes (pure_callback lowers to custom_calls too, so the
value_and_grad lowering holds two), but a host callback is not a kernel.

score: 0
messages:
  - calls no registered FFI handler (pure_callback and io_callback are not kernels)
  - The forward pass of silu_ffi runs a host callback
  - The backward pass of silu_ffi runs a host callback
  - jax.jit(silu_ffi) runs a host callback (pure_callback or io_callback), so its values are not your kernels'
"""
def _silu_host(a):
    a = np.asarray(a)
    return (a / (1 + np.exp(-a))).astype(a.dtype)


def _silu_grad_host(a, g):
    a, g = np.asarray(a), np.asarray(g)
    s = 1 / (1 + np.exp(-a))
    return (g * s * (1 + a * (1 - s))).astype(a.dtype)


@jax.custom_vjp
def silu_ffi(x):
    return jax.pure_callback(_silu_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="broadcast_all")


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.pure_callback(_silu_grad_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, g,
                                    vmap_method="broadcast_all"),))
