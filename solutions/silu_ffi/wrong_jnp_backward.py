"""Wrong: the forward pass is a real FFI kernel, but the bwd rule computes the
derivative with jax.nn.sigmoid instead of calling a backward kernel. No gradient it
returns comes from a kernel, so no gradient value is credited: the five tests of the
forward kernel pass, the five of the backward kernel do not.

score: 5
messages:
  - The gradient of sum(silu_ffi(x) * w) does not come from your FFI kernels
  - jax.jit(jax.grad(...)) through silu_ffi does not come from your FFI kernels, so there are no kernel values to check
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + std::exp(-v));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluOnlyFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_jnp_bwd_fwd": "SiluOnlyFwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_jnp_bwd_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _bwd(x, g):
    s = jax.nn.sigmoid(x)
    return (g * s * (1 + x * (1 - s)),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
