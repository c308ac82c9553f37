"""Wrong: compiles its own RMSNorm kernel (the same math, eps honoured as an Attr<float>)
and registers it under its own target name, my_rms_norm, then lowers the primitive to
it. Every value is right, but the task requires the given target rms_norm (the course's
kernel) and forbids registering FFI targets.

score: 2
messages:
  - calls the FFI target my_rms_norm; only the given target rms_norm counts
"""
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
    double sm = 0.0;
    for (int64_t i = 0; i < last; ++i) sm += double(x.typed_data()[n + i]) * x.typed_data()[n + i];
    const double s = 1.0 / std::sqrt(sm / double(last) + eps);
    for (int64_t i = 0; i < last; ++i) y->typed_data()[n + i] = float(x.typed_data()[n + i] * s);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyRmsNorm, Impl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
_lib = load("my_rms.cc")
jax.ffi.register_ffi_target("my_rms_norm", jax.ffi.pycapsule(_lib.cdll.MyRmsNorm), platform="cpu")

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("my_rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
