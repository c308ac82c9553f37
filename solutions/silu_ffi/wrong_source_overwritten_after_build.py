"""Wrong: the notebook builds, loads and registers a silu.cc whose forward kernel returns
x·(1/2 + x/4), the sigmoid's first-order approximation, then overwrites silu.cc with the
right source and even rebuilds libsilu.so from it at the same path. The process keeps the
library it loaded, and the grader runs that one, so the forward values are wrong.

score: 4
messages:
  - jax.jit(silu_ffi) differs from the reference at
  - the forward kernel should compute x·σ(x)
  - Your forward kernel (target 'old_silu') called directly
"""
import ctypes
import subprocess

SOURCE = r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * FORWARD_SIGMOID(x.typed_data()[i]);
  return ffi::Error::Success();
}
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(OldSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(OldSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""
BUILD = ["clang++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(), "-o", "libsilu.so", "silu.cc"]

Path("silu.cc").write_text(SOURCE.replace("FORWARD_SIGMOID(x.typed_data()[i])", "(0.5f + x.typed_data()[i] / 4.0f)"))
subprocess.run(BUILD, check=True)
library = ctypes.cdll.LoadLibrary(str(Path("libsilu.so").resolve()))
jax.ffi.register_ffi_target("old_silu", jax.ffi.pycapsule(library.OldSilu), platform="cpu")
jax.ffi.register_ffi_target("old_silu_bwd", jax.ffi.pycapsule(library.OldSiluBwd), platform="cpu")

Path("silu.cc").write_text(SOURCE.replace("FORWARD_SIGMOID", "Sigmoid"))   # fixed, too late
subprocess.run(BUILD, check=True)


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("old_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("old_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
