"""Valid: setuptools builds the kernels as an extension (setuptools.setup with build_ext
--inplace, run from the notebook), with Python's own compile and link flags (LDSHARED's
-Wl,-O1 -Wl,-Bsymbolic-functions -Wl,-z,relro, -g -fwrapv); ctypes loads the .so it makes,
which needs no PyInit function. The grader runs that library as the notebook loaded it.

score: 10
"""
import ctypes
import glob
import os

import setuptools

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
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ExtSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ExtSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
# The image has no x86_64-linux-gnu-gcc (sysconfig's CC); LDSHARED keeps its flags (-Wl,-z,relro ...).
os.environ["CC"], os.environ["CXX"] = "clang", "clang++"
setuptools.setup(
    name="silu_ext", script_args=["build_ext", "--inplace", "--quiet"],
    ext_modules=[setuptools.Extension("silu_ext", ["silu.cc"], language="c++",
                                      include_dirs=[jax.ffi.include_dir()],
                                      extra_compile_args=["-std=c++17"])])
library = ctypes.cdll.LoadLibrary(str(Path(glob.glob("silu_ext*.so")[0]).resolve()))   # no PyInit needed
jax.ffi.register_ffi_target("ext_silu", jax.ffi.pycapsule(library.ExtSilu), platform="cpu")
jax.ffi.register_ffi_target("ext_silu_bwd", jax.ffi.pycapsule(library.ExtSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("ext_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("ext_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
