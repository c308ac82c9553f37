"""Wrong: both C++ kernels clamp x to [-80, 80] before computing (the range the task once
promised), so silu(100) comes out as 80. The gradient barely notices (silu' is 1 or 0
out there), the forward values do: the grader's direct call of the forward kernel and
the values over the whole float32 range.

score: 8
messages:
  - Your forward kernel (target 'silu_clamp_fwd') called directly on x of shape (16, 25) differs from the reference
  - jax.jit(silu_ffi) on x over the whole float32 range differs from the reference
"""
Path("silu.cc").write_text(r"""
#include <algorithm>
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Clamp(float v) { return std::clamp(v, -80.0f, 80.0f); }   // NaN passes through
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = Clamp(x.typed_data()[i]);
    y->typed_data()[i] = v * Sigmoid(v);
  }
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = Clamp(x.typed_data()[i]), s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ClampFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ClampBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_clamp_fwd": "ClampFwd", "silu_clamp_bwd": "ClampBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_clamp_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _bwd(x, g):
    return (jax.ffi.ffi_call("silu_clamp_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
