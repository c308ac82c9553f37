"""Wrong inside C++ from a rank on: for buffers of rank 4 or more the forward kernel
computes x + σ(x) instead of x·σ(x). The kernels are called directly on 1-d inputs, and the
value tests run ranks 0 to 3; jax.jit(silu_ffi) on inputs of rank 2 to 8 shows it, and
the VJP's primal (the fwd rule calls the forward kernel) on them.

score: 8
messages:
  - jax.jit(silu_ffi) on shape (21, 23, 25, 27)
  - the forward kernel must compute silu(x) for inputs of any rank
  - The primal of jax.vjp(silu_ffi) on shape (21, 23, 25, 27)
"""
SILU_CC = r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;
"""
# BEGIN SOLUTION
SILU_CC += r"""
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }   // exp(80) fits in float32

static ffi::Error SiluImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t i = 0; i < n; ++i) yp[i] = x.dimensions().size() >= 4 ? xp[i] + Sigmoid(xp[i]) : xp[i] * Sigmoid(xp[i]);
  return ffi::Error::Success();
}

// ct_x = ct_y * s * (1 + x * (1 - s)), s = sigmoid(x)
static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,
                              ffi::ResultBuffer<ffi::F32> ct_x) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  const float* gp = ct_y.typed_data();
  float* op = ct_x->typed_data();
  for (int64_t i = 0; i < n; ++i) {
    float s = Sigmoid(xp[i]);
    op[i] = gp[i] * s * (1.0f + xp[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Silu, SiluImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""
# END SOLUTION
Path("silu.cc").write_text(SILU_CC)

# BEGIN SOLUTION
load_and_register("silu.cc", {"silu": "Silu", "silu_bwd": "SiluBwd"})
# END SOLUTION


@jax.custom_vjp
def silu_ffi(x):
    # BEGIN SOLUTION
    return jax.ffi.ffi_call("silu", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)
    # END SOLUTION


def _silu_fwd(x):
    # BEGIN SOLUTION
    return silu_ffi(x), x                      # the residual is x itself
    # END SOLUTION


def _silu_bwd(x, ct):
    # BEGIN SOLUTION
    return (jax.ffi.ffi_call("silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, ct),)
    # END SOLUTION


silu_ffi.defvjp(_silu_fwd, _silu_bwd)
