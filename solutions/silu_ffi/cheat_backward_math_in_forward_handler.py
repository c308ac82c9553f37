"""Cheat: a backward handler of its own that only doubles its input; the derivative
(halved, times the cotangent) is computed by the forward kernel's handler, which tells
the passes apart by its number of operands. The gradient comes straight from a
distinct handler that is live in every element, but the forward kernel is called in
the backward pass with other operands than in silu_ffi.

score: 5
messages:
  - The backward pass calls your forward kernel's handler (target 'silu_two_faced')
  - the derivative belongs in your backward kernel
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
    op[i] = 0.5f * g->typed_data()[i] * s * (1.0f + xp[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

static ffi::Error Double(ffi::Buffer<ffi::F32> h, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < h.element_count(); ++i) out->typed_data()[i] = 2.0f * h.typed_data()[i];
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(TwoFaced, Both,
    ffi::Ffi::Bind().RemainingArgs().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(Doubler, Double,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_two_faced": "TwoFaced", "silu_doubler": "Doubler"})


def _call(target, *args):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(args[0].shape, args[0].dtype),
                            vmap_method="broadcast_all")(*args)


@jax.custom_vjp
def silu_ffi(x):
    return _call("silu_two_faced", x)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x),
                lambda x, g: (_call("silu_doubler", _call("silu_two_faced", x, g)),))
