"""Valid: compiles with its own subprocess call to g++ and registers with ctypes and
jax.ffi.register_ffi_target directly; target and symbol names have nothing to do with
"silu"; the fwd rule repeats the ffi_call instead of calling silu_ffi.

score: 10
"""
import ctypes
import subprocess

Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error Forward(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + std::exp(-v));
  }
  return ffi::Error::Success();
}

static ffi::Error Backward(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    float s = 1.0f / (1.0f + std::exp(-v));
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SwishForward, Forward,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SwishGradient, Backward,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
subprocess.run(["g++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                "-o", "libswish.so", "silu.cc"], check=True)
lib = ctypes.cdll.LoadLibrary(str(Path("libswish.so").resolve()))
jax.ffi.register_ffi_target("swish_forward", jax.ffi.pycapsule(lib.SwishForward), platform="cpu")
jax.ffi.register_ffi_target("swish_gradient", jax.ffi.pycapsule(lib.SwishGradient), platform="cpu")


def _forward(x):
    return jax.ffi.ffi_call("swish_forward", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


@jax.custom_vjp
def silu_ffi(x):
    return _forward(x)


def _fwd(x):
    return _forward(x), x


def _bwd(x, g):
    return (jax.ffi.ffi_call("swish_gradient", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(_fwd, _bwd)
