"""Valid: the sigmoid lives in a second library of the notebook's own, libsigmoid.so
(extern "C" float Sigmoid(float)); libsilu.so's kernels call it and are linked with
-L. -lsigmoid -Wl,-rpath,$ORIGIN, so loading libsilu.so with ctypes pulls libsigmoid.so
in as a dependency. The grader runs both libraries as the notebook's loader mapped them.

score: 10
"""
import ctypes
import subprocess

Path("sigmoid.cc").write_text(r"""
#include <cmath>
extern "C" float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
""")
Path("silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
extern "C" float Sigmoid(float v);   // from libsigmoid.so
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(DepSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(DepSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
subprocess.run(["clang++", "-O2", "-shared", "-fPIC", "-o", "libsigmoid.so", "sigmoid.cc"], check=True)
subprocess.run(["clang++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                "-o", "libsilu.so", "silu.cc", "-L.", "-lsigmoid", "-Wl,-rpath,$ORIGIN"], check=True)
library = ctypes.cdll.LoadLibrary(str(Path("libsilu.so").resolve()))   # libsigmoid.so comes with it
jax.ffi.register_ffi_target("dep_silu", jax.ffi.pycapsule(library.DepSilu), platform="cpu")
jax.ffi.register_ffi_target("dep_silu_bwd", jax.ffi.pycapsule(library.DepSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("dep_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("dep_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
