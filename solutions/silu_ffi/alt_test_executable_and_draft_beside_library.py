"""Valid: beside the library it loads (silu.cc through load_and_register), the notebook
builds a test executable (test_silu.cc, which includes silu.cc and has a main) and an
earlier draft library (draft.cc, with a wrong backward kernel under the same symbol names)
that it never loads. The grader runs only the library the notebook loaded, so neither is a
second definition of those names.

score: 10
"""
import subprocess

KERNELS = r"""
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
    out->typed_data()[i] = g.typed_data()[i] * BWD_TERM;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(DraftedSilu, Fwd, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(DraftedSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""
Path("silu.cc").write_text("#define BWD_TERM (s * (1.0f + v * (1.0f - s)))\n" + KERNELS)
Path("draft.cc").write_text("#define BWD_TERM s\n" + KERNELS)
Path("test_silu.cc").write_text(r"""
#include "silu.cc"
#include <cstdio>
int main() { std::printf("%f\n", 2.0f * Sigmoid(2.0f)); return 0; }
""")
include = jax.ffi.include_dir()
subprocess.run(["clang++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", include, "-o", "libdraft.so", "draft.cc"],
               check=True)
subprocess.run(["clang++", "-std=c++17", "-O2", "-I", include, "-o", "test_silu", "test_silu.cc"], check=True)
subprocess.run(["./test_silu"], check=True)
load_and_register("silu.cc", {"drafted_silu": "DraftedSilu", "drafted_silu_bwd": "DraftedSiluBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("drafted_silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("drafted_silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
