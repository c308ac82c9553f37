"""Wrong inside C++ from a size on: from 65536 elements the backward kernel reads x one place
too far for every i >= 65536 (x[i + 1], clamped to the last element), an off-by-one in the
second half of a split loop. The gradient tests' programs are smaller; the grader's direct
call of the backward kernel on 2^20 + 5 values with random cotangents shows it.

score: 9
messages:
  - Your backward kernel (target 'silu_offset_bwd') called directly on 1,048,581 values differs from the reference
  - it must compute ȳ·σ(x)·(1 + x·(1 − σ(x))) for every element, in its place, whatever the size of x
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
static inline float Grad(float v, float g) { float s = Sigmoid(v); return g * s * (1.0f + v * (1.0f - s)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  const float* gp = g.typed_data();
  float* op = out->typed_data();
  if (n < 65536) {
    for (int64_t i = 0; i < n; ++i) op[i] = Grad(xp[i], gp[i]);
    return ffi::Error::Success();
  }
  for (int64_t i = 0; i < 65536; ++i) op[i] = Grad(xp[i], gp[i]);   // the first chunk
  for (int64_t i = 65536; i < n; ++i) {                            // the rest, off by one
    const int64_t j = i + 1 < n ? i + 1 : n - 1;
    op[i] = Grad(xp[j], gp[i]);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(OffsetFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(OffsetBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_offset_fwd": "OffsetFwd", "silu_offset_bwd": "OffsetBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_offset_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_offset_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
