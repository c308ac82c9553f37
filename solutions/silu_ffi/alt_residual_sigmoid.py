"""Valid: three handlers. The primal calls a plain forward kernel; the fwd rule calls a
third kernel that also returns σ(x) as the residual; the backward kernel takes x, σ(x)
and the cotangent.

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sig(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error Plain(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sig(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error WithResidual(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                               ffi::ResultBuffer<ffi::F32> s) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], sv = Sig(v);
    s->typed_data()[i] = sv;
    y->typed_data()[i] = v * sv;
  }
  return ffi::Error::Success();
}

static ffi::Error Grad(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s, ffi::Buffer<ffi::F32> g,
                       ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], sv = s.typed_data()[i];
    out->typed_data()[i] = g.typed_data()[i] * sv * (1.0f + v * (1.0f - sv));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ActPlain, Plain,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ActWithResidual, WithResidual,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ActGrad, Grad,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"act_plain": "ActPlain", "act_with_residual": "ActWithResidual",
                              "act_grad": "ActGrad"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("act_plain", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _fwd(x):
    sds = jax.ShapeDtypeStruct(x.shape, x.dtype)
    y, s = jax.ffi.ffi_call("act_with_residual", (sds, sds), vmap_method="broadcast_all")(x)
    return y, (x, s)


def _bwd(res, g):
    x, s = res
    return (jax.ffi.ffi_call("act_grad", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, s, g),)


silu_ffi.defvjp(_fwd, _bwd)
