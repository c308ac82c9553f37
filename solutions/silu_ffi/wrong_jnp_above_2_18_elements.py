"""Wrong: the kernels run for inputs of up to 2^18 elements, twice the largest input any
test ran before the grader lowered every shape; larger inputs go through jax.nn.silu and
a jnp derivative. Every value the tests compare is right; the fwd rule's primal (the VJP's
value), lowered at every shape, is JAX's there too.

score: 5
messages:
  - "For inputs of shape (2^18 + 1,), jax.jit(silu_ffi): the output is not the output of your forward kernel ('big_fwd'): it is computed in JAX"
  - "For inputs of shape (2^18 + 1,), jax.jit(lambda v: jax.vjp(silu_ffi, v)[1](v)[0]): the output is not the output of your backward kernel ('big_bwd')"
  - "jax.jit(jax.vmap(silu_ffi, in_axes=0)): the output is not the output of your forward kernel ('big_fwd')"
  - "jax.jit of the VJP of silu_ffi on inputs of rank 2 to 8 does not come from your FFI kernels"
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

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(BigFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(BigBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"big_fwd": "BigFwd", "big_bwd": "BigBwd"})


@jax.custom_vjp
def silu_ffi(x):
    if x.size > 2**18:
        return jax.nn.silu(x)
    return jax.ffi.ffi_call("big_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


def _bwd(x, g):
    if x.size > 2**18:
        s = jax.nn.sigmoid(x)
        return (g * s * (1 + x * (1 - s)),)
    return (jax.ffi.ffi_call("big_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
