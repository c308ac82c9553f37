"""Valid: the usual C++ layout, src/silu.cc and include/silu/math.hpp, built by a %%bash cell
with clang++ -Iinclude into build/libsilu.so, which ctypes loads. The grader runs that
library as the notebook loaded it; where the sources sit does not matter.

score: 10
"""
Path("include/silu").mkdir(parents=True, exist_ok=True)
Path("src").mkdir(exist_ok=True)
Path("include/silu/math.hpp").write_text(r"""
#pragma once
#include <cmath>
namespace silu {
inline float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
}  // namespace silu
""")
Path("src/silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
#include "silu/math.hpp"
namespace ffi = xla::ffi;

static ffi::Error Fwd(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * silu::sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error Bwd(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = silu::sigmoid(v);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(LayoutSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(LayoutSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
# %%
%%bash
mkdir -p build
clang++ -std=c++17 -O2 -shared -fPIC -Iinclude -I"$(python -c 'import jax; print(jax.ffi.include_dir())')" \
  src/silu.cc -o build/libsilu.so
# %%
import ctypes

library = ctypes.cdll.LoadLibrary(str(Path("build/libsilu.so").resolve()))
jax.ffi.register_ffi_target("layout_silu", jax.ffi.pycapsule(library.LayoutSilu), platform="cpu")
jax.ffi.register_ffi_target("layout_silu_bwd", jax.ffi.pycapsule(library.LayoutSiluBwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("layout_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("layout_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
