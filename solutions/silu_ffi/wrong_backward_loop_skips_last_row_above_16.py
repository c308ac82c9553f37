"""Wrong: the backward rule loops over rows with fori_loop, writing each into a buffer of
zeros, and stops a row short when there are more than 16: the last row's gradient is 0. The
every-shape proof names the first shape where an output element is left at the loop's
initial buffer (tests 6 and 10), and test 8's run finds the entry that does not depend on the
kernels.

score: 7
messages:
  - "For inputs of shape (17,), jax.jit(lambda v: jax.vjp(silu_ffi, v)[1](v)[0]): element (16,) of the output comes from no element of your input"
  - "(1 of 505 output entries do not depend on it)"
  - "jax.jit(jax.grad(...)) through silu_ffi does not come from your FFI kernels"
"""
SILU_CC = r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;
"""
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
Path("silu.cc").write_text(SILU_CC)

load_and_register("silu.cc", {"silu": "Silu", "silu_bwd": "SiluBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _silu_fwd(x):
    return silu_ffi(x), x                      # the residual is x itself


def _bwd_call(x, ct):
    return jax.ffi.ffi_call("silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x, ct)


def _silu_bwd(x, ct):
    if x.ndim == 0 or x.shape[0] < 2:
        return (_bwd_call(x, ct),)
    # one row at a time; the loop stops a row short when there are more than 16: that row stays 0
    stop = x.shape[0] - 1 if x.shape[0] > 16 else x.shape[0]
    return (jax.lax.fori_loop(0, stop, lambda i, out: out.at[i].set(_bwd_call(x[i], ct[i])), jnp.zeros_like(x)),)


silu_ffi.defvjp(_silu_fwd, _silu_bwd)
