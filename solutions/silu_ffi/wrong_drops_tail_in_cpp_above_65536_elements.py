"""Wrong inside C++ from a size on: from 65536 elements the forward kernel runs an unrolled
loop over blocks of 8 and forgets the remainder: the last n % 8 outputs stay 0. The value
tests' programs are smaller; the grader's direct call on 2^20 + 5 values (ordinary values at
both ends of the buffer) finds the 5 zeros at its end. (Session 32: the programs at ranks 2 to 8 now run past 2^18 values, where it is wrong too: test 8's point.)

score: 8
messages:
  - Your forward kernel (target 'silu_blocks8_fwd') called directly on 1,048,581 values differs from the reference at 5 of 1048581 entries
  - it must compute silu(x) for every element of x, in its place, whatever the size of x
  - "The primal of jax.vjp(silu_ffi) on shape (61, 67, 71)"
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Silu(float v) { return v / (1.0f + std::exp(-v)); }
static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  if (n < 65536) {
    for (int64_t i = 0; i < n; ++i) yp[i] = Silu(xp[i]);
    return ffi::Error::Success();
  }
  const int64_t blocks = n / 8;
  for (int64_t b = 0; b < blocks; ++b)       // unrolled by 8 for large inputs...
    for (int k = 0; k < 8; ++k) yp[8 * b + k] = Silu(xp[8 * b + k]);
  for (int64_t i = 8 * blocks; i < n; ++i) yp[i] = 0.0f;   // ...and the tail never computed
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Blocks8Fwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(Blocks8Bwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_blocks8_fwd": "Blocks8Fwd", "silu_blocks8_bwd": "Blocks8Bwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_blocks8_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_blocks8_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
