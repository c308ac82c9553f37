"""Cheat: two real, distinct FFI handlers that merely copy a buffer, wrapped around
jax.nn.silu in the forward pass and around a jnp derivative in the backward pass.
Both custom_call counts and every value are right, and the outputs depend on the
kernels; the SiLU is computed in JAX (the compiled programs hold exp and divide), which
every test now sees, the public structure tests included (they earned 2 points before).

score: 0
messages:
  - jax.jit(silu_ffi) computes math in JAX outside your kernels; SiLU must be computed inside your C++ forward kernel
  - jax.jit(silu_ffi) on shape (5,) computes math in JAX outside your kernels
  - The gradient of silu_ffi computes math in JAX outside your kernels
  - jax.jit(silu_ffi) computes math in JAX outside your kernels, so its values are not your kernels'
"""
Path("silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyA, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyB, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"copy_forward": "CopyA", "copy_backward": "CopyB"})


def _copy(target, x):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


@jax.custom_vjp
def silu_ffi(x):
    return _copy("copy_forward", jax.nn.silu(x))


def _bwd(x, g):
    s = jax.nn.sigmoid(x)
    return (_copy("copy_backward", g * s * (1 + x * (1 - s))),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
