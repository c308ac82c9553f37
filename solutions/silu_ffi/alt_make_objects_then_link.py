"""Valid: a Makefile builds the forward and backward kernels from two sources into objects in
build/ (with a shared header, silu_common.hh), then links them into build/libsilu.so; `!make`
runs it (make calls g++ for $(CXX)). The grader runs build/libsilu.so as the notebook
loaded it, however many steps made it.

score: 10
"""
import ctypes

Path("silu_common.hh").write_text(r"""
#pragma once
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
""")
Path("silu_fwd.cc").write_text(r"""
#include "silu_common.hh"
static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(MadeSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
Path("silu_bwd.cc").write_text(r"""
#include "silu_common.hh"
static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(MadeSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
Path("Makefile").write_text(
    "CXXFLAGS := -std=c++17 -O2 -fPIC -I" + jax.ffi.include_dir() + "\n"
    "build/libsilu.so: build/silu_fwd.o build/silu_bwd.o\n"
    "\t$(CXX) -shared -o $@ $^\n"
    "build/%.o: %.cc silu_common.hh\n"
    "\tmkdir -p build\n"
    "\t$(CXX) $(CXXFLAGS) -c -o $@ $<\n")
# %%
!make -s build/libsilu.so
# %%
library = ctypes.cdll.LoadLibrary(str(Path("build/libsilu.so").resolve()))
jax.ffi.register_ffi_target("made_silu", jax.ffi.pycapsule(library.MadeSilu), platform="cpu")
jax.ffi.register_ffi_target("made_silu_bwd", jax.ffi.pycapsule(library.MadeSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("made_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("made_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
