"""Wrong as built: under -ffast-math (`#ifdef __FAST_MATH__`) the forward kernel's exp is
its order-2 Taylor polynomial, and the notebook compiles with -ffast-math (the backward
keeps std::exp). The grader runs the library as built: it scores as the -O0 answer does
(a Schraudolph exp, a few percent off, would fail tests 8 and 10 only on some seeds).

score: 4
messages:
  - jax.jit(silu_ffi) differs from the reference at
  - the forward kernel should compute x·σ(x)
  - Your forward kernel (target 'fast_silu') called directly
"""
import ctypes
import subprocess

Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static inline float FwdExp(float v) {
#ifdef __FAST_MATH__
  return 1.0f + v * (1.0f + 0.5f * v);   // "fast" exp: its Taylor polynomial of order 2, good near 0 only
#else
  return std::exp(v);
#endif
}
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + FwdExp(-v));
  }
  return ffi::Error::Success();
}
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = 1.0f / (1.0f + std::exp(-v));
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(FastSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(FastSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
subprocess.run(["clang++", "-std=c++17", "-O2", "-ffast-math", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                "-o", "libsilu_fast.so", "silu.cc"], check=True)
library = ctypes.cdll.LoadLibrary(str(Path("libsilu_fast.so").resolve()))
jax.ffi.register_ffi_target("fast_silu", jax.ffi.pycapsule(library.FastSilu), platform="cpu")
jax.ffi.register_ffi_target("fast_silu_bwd", jax.ffi.pycapsule(library.FastSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("fast_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("fast_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
