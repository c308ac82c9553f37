"""Valid: the kernels' bodies are inline functions in a header with an extension of the
student's choosing, silu_math.ipp, which silu.cc includes; load_and_register builds
silu.cc. The grader runs the library the notebook loaded, so the header's name does not
matter.

score: 10
"""
Path("silu_math.ipp").write_text(r"""
#pragma once
#include <cmath>
inline float SiluOf(float v) { return v / (1.0f + std::exp(-v)); }
inline float SiluGradOf(float v) {
  float s = 1.0f / (1.0f + std::exp(-v));
  return s * (1.0f + v * (1.0f - s));
}
""")
Path("silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
#include "silu_math.ipp"
namespace ffi = xla::ffi;

static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = SiluOf(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) out->typed_data()[i] = g.typed_data()[i] * SiluGradOf(x.typed_data()[i]);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(IppSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(IppSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"ipp_silu": "IppSilu", "ipp_silu_bwd": "IppSiluBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("ipp_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("ipp_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
