"""Wrong: the backward kernel uses the textbook form ȳ·e^x(1 + e^x + x)/(1 + e^x)², which
overflows float32 for x above about 44 and returns inf/inf = NaN there. Everything
else, the chapter's self-check included, passes.

score: 9
messages:
  - The gradient on x in [-1000, 1000] contains
  - stay finite and accurate for |x| up to 1000 (avoid powers of e^x)
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + std::exp(-v));
  }
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    float e = std::exp(v);
    out->typed_data()[i] = g.typed_data()[i] * e * (1.0f + e + v) / ((1.0f + e) * (1.0f + e));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(NaiveFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(NaiveBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_naive_fwd": "NaiveFwd", "silu_naive_bwd": "NaiveBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_naive_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_naive_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
