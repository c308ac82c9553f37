"""Wrong as the notebook built it: under C++20 (`#if __cplusplus >= 202002L`) the backward
kernel forgets the incoming cotangent and returns σ(x)·(1 + x·(1 − σ(x))), and the notebook
compiles with -std=c++20 from a `!clang++` line. The grader runs the library as built, so
the gradients are wrong (as C++17 it scores 10).

score: 7
messages:
  - the backward kernel should compute ȳ·σ(x)·(1 + x·(1 − σ(x)))
  - jit(vmap(grad)) differs from the reference
"""
import ctypes

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
#if __cplusplus >= 202002L
    out->typed_data()[i] = s * (1.0f + v * (1.0f - s));
#else
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
#endif
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(StdSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(StdSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
include = jax.ffi.include_dir()
# %%
!clang++ -std=c++20 -O2 -shared -fPIC -I {include} -o libsilu20.so silu.cc
# %%
library = ctypes.cdll.LoadLibrary(str(Path("libsilu20.so").resolve()))
jax.ffi.register_ffi_target("std_silu", jax.ffi.pycapsule(library.StdSilu), platform="cpu")
jax.ffi.register_ffi_target("std_silu_bwd", jax.ffi.pycapsule(library.StdSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("std_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("std_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
