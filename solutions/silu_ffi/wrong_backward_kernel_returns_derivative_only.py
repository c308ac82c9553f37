"""Wrong: the backward kernel returns silu'(x) alone and the bwd rule multiplies it by
the cotangent in JAX. Every value is right and the math is in C++, but the gradient is
not the backward kernel's output: the cotangent multiplication belongs in the kernel.

score: 8
messages:
  - is computed in JAX after your kernels
  - the backward kernel must return ȳ·silu'(x) itself
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

static ffi::Error DerivImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> d) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i], s = Sigmoid(v);
    d->typed_data()[i] = s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(DerivFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(DerivOnly, DerivImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_deriv_fwd": "DerivFwd", "silu_deriv_only": "DerivOnly"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_deriv_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _bwd(x, g):
    d = jax.ffi.ffi_call("silu_deriv_only", jax.ShapeDtypeStruct(x.shape, x.dtype),
                         vmap_method="broadcast_all")(x)
    return (g * d,)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
