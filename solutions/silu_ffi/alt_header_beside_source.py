"""Valid: the sigmoid lives in a header, csrc/sigmoid.h, that the kernels' source beside it
includes (#include "sigmoid.h"); both are in a subfolder and the source is loaded with
load_and_register("csrc/silu_kernels.cc", ...). The grader writes the header beside its own
copy of the source.

score: 10
"""
Path("csrc").mkdir(exist_ok=True)
Path("csrc/sigmoid.h").write_text(r"""
#pragma once
#include <cmath>
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }   // exp(80) fits in float32
""")
Path("csrc/silu_kernels.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
#include "sigmoid.h"
namespace ffi = xla::ffi;

static ffi::Error SiluImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluWithHeader, SiluImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluWithHeaderBwd, SiluBwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("csrc/silu_kernels.cc", {"silu_h": "SiluWithHeader", "silu_h_bwd": "SiluWithHeaderBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_h", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_h_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
