"""Cheat: one C++ handler, registered under two target names. It tells the passes
apart by its number of operands (RemainingArgs): x alone gives silu(x), (x, ȳ) gives
the gradient. Every value is right, the two custom_calls carry different names and the
math is all in C++, but the backward pass has no handler of its own.

score: 5
messages:
  - The gradient does not depend, in every element, on a backward kernel of your own
  - one function registered under two target names
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error Both(ffi::RemainingArgs args, ffi::ResultBuffer<ffi::F32> out) {
  auto x = args.get<ffi::Buffer<ffi::F32>>(0);
  if (x.has_error()) return x.error();
  const float* xp = x->typed_data();
  float* op = out->typed_data();
  const int64_t n = x->element_count();
  if (args.size() == 1) {
    for (int64_t i = 0; i < n; ++i) op[i] = xp[i] * Sigmoid(xp[i]);
    return ffi::Error::Success();
  }
  auto g = args.get<ffi::Buffer<ffi::F32>>(1);
  if (g.has_error()) return g.error();
  for (int64_t i = 0; i < n; ++i) {
    float s = Sigmoid(xp[i]);
    op[i] = g->typed_data()[i] * s * (1.0f + xp[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBoth, Both,
    ffi::Ffi::Bind().RemainingArgs().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"swish_forward_pass": "SiluBoth", "swish_backward_pass": "SiluBoth"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("swish_forward_pass", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("swish_backward_pass", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
