"""Valid: C++20 (std::span, a consteval constant) built by the notebook's own
subprocess.run of clang++ -std=c++20, loaded with ctypes and registered with
jax.ffi.register_ffi_target; the grader runs that library as built, whatever the standard.

score: 10
"""
import ctypes
import subprocess

Path("silu20.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include <span>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

consteval float One() { return 1.0f; }

static float Sigmoid(float v) { return One() / (One() + std::exp(-v)); }   // exp(80) fits in float32

static ffi::Error Forward(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  std::span<const float> xs(x.typed_data(), x.element_count());
  std::span<float> ys(y->typed_data(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) ys[i] = xs[i] * Sigmoid(xs[i]);
  return ffi::Error::Success();
}

static ffi::Error Backward(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  std::span<const float> xs(x.typed_data(), x.element_count()), gs(g.typed_data(), xs.size());
  std::span<float> os(out->typed_data(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    float s = Sigmoid(xs[i]);
    os[i] = gs[i] * s * (One() + xs[i] * (One() - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Silu20, Forward,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(Silu20Bwd, Backward,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
subprocess.run(["clang++", "-std=c++20", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                "-o", "libsilu20.so", "silu20.cc"], check=True)
lib = ctypes.cdll.LoadLibrary(str(Path("libsilu20.so").resolve()))
jax.ffi.register_ffi_target("silu20", jax.ffi.pycapsule(lib.Silu20), platform="cpu")
jax.ffi.register_ffi_target("silu20_bwd", jax.ffi.pycapsule(lib.Silu20Bwd), platform="cpu")


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu20", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu20_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
