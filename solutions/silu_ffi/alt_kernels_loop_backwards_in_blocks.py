"""Valid: the kernels visit the elements in another order, and still write each result in
its own place: the forward kernel walks blocks of 16 from the end of the buffer (the
remainder at the front last), the backward kernel runs from the last element down. The
order a kernel computes in is its own business; where each value lands is not (the grader's
direct calls on 2^20 + 5 values compare every element in its place).

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count(), head = n % 16;
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t start = n - 16; start >= head; start -= 16)
    for (int64_t k = 0; k < 16; ++k) yp[start + k] = xp[start + k] * Sigmoid(xp[start + k]);
  for (int64_t i = 0; i < head; ++i) yp[i] = xp[i] * Sigmoid(xp[i]);
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = x.element_count() - 1; i >= 0; --i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(BlockedFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(BlockedBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_blocked_fwd": "BlockedFwd", "silu_blocked_bwd": "BlockedBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_blocked_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_blocked_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
