"""Wrong: one handler serves both passes, switched by an integer `mode` attribute
(the forward call passes x twice and ignores the second buffer). Values and the
chapter's custom_call count are right; there is no second handler, and the forward
kernel does not take x as its only operand.

score: 4
messages:
  - The gradient does not depend, in every element, on a backward kernel of your own
  - Your forward kernel (target 'silu_two_modes') takes 2 operands
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error Impl(int32_t mode, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g,
                       ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    float s = 1.0f / (1.0f + std::exp(-v));
    out->typed_data()[i] = mode == 0 ? v * s : g.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluModes, Impl,
    ffi::Ffi::Bind().Attr<int32_t>("mode").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_two_modes": "SiluModes"})


def _call(x, g, mode):
    return jax.ffi.ffi_call("silu_two_modes", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x, g, mode=np.int32(mode))


@jax.custom_vjp
def silu_ffi(x):
    return _call(x, x, 0)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), lambda x, g: (_call(x, g, 1),))
