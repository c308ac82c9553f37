"""Valid: the forward kernel is swish with a float attribute beta (called with
beta = 1, i.e. SiLU); the fwd rule keeps only x, and the bwd rule calls the forward
kernel again (same operand, same attribute) to recompute y = silu(x), then the backward
kernel computes ȳ·(σ(x) + y·(1 − σ(x))) from x, y and ȳ. The forward kernel is live in
the gradient, as the forward kernel.

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error SwishImpl(float beta, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(beta * x.typed_data()[i]);
  return ffi::Error::Success();
}

// d/dx x·σ(βx) = σ(βx) + β·y·(1 − σ(βx)), with y = x·σ(βx)
static ffi::Error SwishGradImpl(float beta, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                                ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(beta * x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * (s + beta * y.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SwishBeta, SwishImpl,
    ffi::Ffi::Bind().Attr<float>("beta").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SwishBetaGrad, SwishGradImpl,
    ffi::Ffi::Bind().Attr<float>("beta").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"swish_beta": "SwishBeta", "swish_beta_grad": "SwishBetaGrad"})

BETA = np.float32(1.0)


def _swish(x):
    return jax.ffi.ffi_call("swish_beta", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x, beta=BETA)


@jax.custom_vjp
def silu_ffi(x):
    return _swish(x)


def _bwd(x, g):
    y = _swish(x)                                   # recomputed instead of stored
    return (jax.ffi.ffi_call("swish_beta_grad", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, y, g, beta=BETA),)


silu_ffi.defvjp(lambda x: (_swish(x), x), _bwd)
