"""Valid: a numerically different formula. σ(x) is computed from e^{-|x|} (never
overflows), the derivative as y + σ(x)·(1 − y) with y = x·σ(x), in double precision
inside the kernel; the arrays are flattened to 1-D around the ffi_calls.

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static double StableSigmoid(double v) {
  double e = std::exp(-std::fabs(v));
  return v >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

static ffi::Error Fwd(ffi::BufferR1<ffi::F32> x, ffi::ResultBufferR1<ffi::F32> y) {
  auto n = x.dimensions()[0];
  for (int64_t i = 0; i < n; ++i) {
    double v = x.typed_data()[i];
    y->typed_data()[i] = static_cast<float>(v * StableSigmoid(v));
  }
  return ffi::Error::Success();
}

static ffi::Error Bwd(ffi::BufferR1<ffi::F32> x, ffi::BufferR1<ffi::F32> ct, ffi::ResultBufferR1<ffi::F32> out) {
  auto n = x.dimensions()[0];
  for (int64_t i = 0; i < n; ++i) {
    double v = x.typed_data()[i], s = StableSigmoid(v), y = v * s;
    out->typed_data()[i] = static_cast<float>(ct.typed_data()[i] * (y + s * (1.0 - y)));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(StableSiluFwd, Fwd,
    ffi::Ffi::Bind().Arg<ffi::BufferR1<ffi::F32>>().Ret<ffi::BufferR1<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(StableSiluBwd, Bwd,
    ffi::Ffi::Bind().Arg<ffi::BufferR1<ffi::F32>>().Arg<ffi::BufferR1<ffi::F32>>().Ret<ffi::BufferR1<ffi::F32>>());
""")
load_and_register("silu.cc", {"stable_silu_fwd": "StableSiluFwd", "stable_silu_bwd": "StableSiluBwd"})


def _flat_call(target, x, *args):
    flat = [a.reshape(-1) for a in (x, *args)]
    out = jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(flat[0].shape, x.dtype),
                           vmap_method="sequential")(*flat)
    return out.reshape(x.shape)


@jax.custom_vjp
def silu_ffi(x):
    return _flat_call("stable_silu_fwd", x)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x),
                lambda x, ct: (_flat_call("stable_silu_bwd", x, ct),))
