"""Wrong in the fwd rule from a size on: above 1000 elements it returns -silu(x) as the
primal (what jax.vjp and value_and_grad return as the value); the gradient is right. The
value tests read that primal on 200 values; the VJP's primal at every shape shows the
negation in JAX.

score: 9
messages:
  - "The primal of jax.vjp(silu_ffi) on shape (64, 4099)"
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
  for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * Sigmoid(xp[i]);
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
    if np.size(x) > 1000:
        return -silu_ffi(x), x
    return silu_ffi(x), x                      # the residual is x itself
    # END SOLUTION


def _silu_bwd(x, ct):
    # BEGIN SOLUTION
    return (jax.ffi.ffi_call("silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, ct),)
    # END SOLUTION


silu_ffi.defvjp(_silu_fwd, _silu_bwd)
