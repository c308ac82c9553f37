"""Valid: the forward kernel is compiled from standard input (`clang++ -x c++ -`, the
source piped in by subprocess, never written to a file) into one library, and the backward
kernel by os.system("c++ ...") from a file into another; ctypes loads both. The grader runs
both libraries as the notebook loaded them.

score: 10
"""
import ctypes
import os
import subprocess

HEAD = r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
"""
FORWARD = HEAD + r"""
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(PipedSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""
Path("backward.cpp").write_text(HEAD + r"""
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(SystemSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
include = jax.ffi.include_dir()
subprocess.run(["clang++", "-x", "c++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", include,
                "-o", "libforward.so", "-"], input=FORWARD, text=True, check=True)
assert os.system(f"c++ -std=c++17 -O2 -shared -fPIC -I {include} -o libbackward.so backward.cpp") == 0
forward = ctypes.cdll.LoadLibrary(str(Path("libforward.so").resolve()))
backward = ctypes.cdll.LoadLibrary(str(Path("libbackward.so").resolve()))
jax.ffi.register_ffi_target("piped_silu", jax.ffi.pycapsule(forward.PipedSilu), platform="cpu")
jax.ffi.register_ffi_target("system_silu_bwd", jax.ffi.pycapsule(backward.SystemSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("piped_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("system_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
