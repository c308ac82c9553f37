"""Cheat: compiles its own kernel (eps fixed at 1e-5 inside, the attribute ignored) and
registers it under the taken name rms_norm, hoping that custom_call @rms_norm runs the
student's code. It never does: the grader starts the CPU backend before the notebook
runs, so jax.ffi.register_ffi_target reaches XLA at once and XLA rejects the duplicate
("Duplicate FFI handler registration for rms_norm"). The answer cell stops there,
before rms_norm_prim_p is defined, and every test fails.

score: 0
messages:
  - rms_norm_prim_p is not an untouched jax.extend.core.Primitive (or the answer cell stopped before defining it)
  - "Cell 6 of your notebook raised an XLA error: the FFI target rms_norm is already registered with another handler."
"""
import ctypes
from pathlib import Path
from kernels.build import load

Path("my_rms.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t last = x.dimensions().back();
  for (int64_t n = 0; n < x.element_count(); n += last) {
    float sm = 0.0f;
    for (int64_t i = 0; i < last; ++i) sm += x.typed_data()[n + i] * x.typed_data()[n + i];
    const float s = 1.0f / std::sqrt(sm / float(last) + 1e-5f);
    for (int64_t i = 0; i < last; ++i) y->typed_data()[n + i] = x.typed_data()[n + i] * s;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyRmsNorm, Impl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
_lib = load("my_rms.cc")
jax.ffi.register_ffi_target("rms_norm", jax.ffi.pycapsule(_lib.cdll.MyRmsNorm), platform="cpu")

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
