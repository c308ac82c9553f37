"""Wrong as the notebook built it: silu.cc's backward kernel drops the second term,
ȳ·σ(x) instead of ȳ·σ(x)·(1 + x·(1 − σ(x))), when SILU_APPROX_GRAD is defined, and the
notebook compiles it with -DSILU_APPROX_GRAD (kernels.build.load's extra flags). The grader
runs the library as built, so it scores what wrong_backward_formula.py scores (without the
define, 10).

score: 7
messages:
  - the backward kernel should compute ȳ·σ(x)·(1 + x·(1 − σ(x)))
  - The gradient on x in [-1000, 1000] differs from the reference
  - jit(vmap(grad)) differs from the reference
"""
from kernels.build import load, register

Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
#ifdef SILU_APPROX_GRAD
    out->typed_data()[i] = g.typed_data()[i] * s;
#else
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
#endif
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(DefSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(DefSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
register(load("silu.cc", extra_flags=("-DSILU_APPROX_GRAD",)), {"def_silu": "DefSilu", "def_silu_bwd": "DefSiluBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("def_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("def_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
