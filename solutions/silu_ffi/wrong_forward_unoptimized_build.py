"""Wrong as the notebook built it: without optimization (`#ifndef __OPTIMIZE__`, what -O0
leaves undefined) the forward kernel returns x·(1/2 + x/4), the sigmoid's first-order
approximation, and the notebook builds it at -O0 with subprocess. The grader runs the
library as built, so the forward values are wrong (at -O2 it scores 10).

score: 4
messages:
  - jax.jit(silu_ffi) differs from the reference at
  - the forward kernel should compute x·σ(x)
"""
import ctypes
import subprocess

Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static inline float Sigmoid(float v) {
#ifdef __OPTIMIZE__
  return 1.0f / (1.0f + std::exp(-v));
#else
  return 0.5f + v / 4.0f;
#endif
}
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = 1.0f / (1.0f + std::exp(-v));
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(O0Silu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(O0SiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
subprocess.run(["clang++", "-std=c++17", "-O0", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                "-o", "libsilu_o0.so", "silu.cc"], check=True)
library = ctypes.cdll.LoadLibrary(str(Path("libsilu_o0.so").resolve()))
jax.ffi.register_ffi_target("o0_silu", jax.ffi.pycapsule(library.O0Silu), platform="cpu")
jax.ffi.register_ffi_target("o0_silu_bwd", jax.ffi.pycapsule(library.O0SiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("o0_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("o0_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
