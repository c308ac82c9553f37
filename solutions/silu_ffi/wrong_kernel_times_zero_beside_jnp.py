"""Wrong: real forward and backward kernels, but the primal multiplies the forward
kernel's result by zero and adds jax.nn.silu(x): every value is right and both
custom_calls are there, yet no value of silu_ffi comes from the forward kernel. The
gradient, which never uses the primal's output, is honest.

score: 3
messages:
  - The output of jax.jit(silu_ffi) does not come from your FFI kernel
  - jax.jit(silu_ffi) does not come from your FFI kernels, so there are no kernel values to check
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ZeroFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ZeroBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_zero_fwd": "ZeroFwd", "silu_zero_bwd": "ZeroBwd"})


@jax.custom_vjp
def silu_ffi(x):
    kernel = jax.ffi.ffi_call("silu_zero_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                              vmap_method="broadcast_all")(x)
    return kernel * 0 + jax.nn.silu(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_zero_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
