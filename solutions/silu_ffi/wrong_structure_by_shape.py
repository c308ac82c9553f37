"""Wrong: the kernels run for inputs of up to 32 elements, the shapes a structure check
would likely look at; larger inputs go through jax.nn.silu and a jnp derivative. The
grader checks structure on the very inputs whose values it grades, and lowers every path
at every shape: from 33 elements on, and under vmap from examples of 33 elements on, the
programs hold no kernel.

score: 4
messages:
  - The output of jax.jit(silu_ffi) on shape (16, 25) does not come from your FFI kernel
  - jax.jit(silu_ffi) does not come from your FFI kernels, so there are no kernel values to check
  - "For inputs of shape (33,), jax.jit(lambda v: jax.vjp(silu_ffi, v)[1](v)[0]): the output is not the output of your backward kernel ('silu_shape_bwd')"
  - "For inputs of shape (2, 3, 5, 7), jax.jit(jax.vmap(silu_ffi, in_axes=0)): the output is not the output of your forward kernel ('silu_shape_fwd')"
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(ShapeFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ShapeBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_shape_fwd": "ShapeFwd", "silu_shape_bwd": "ShapeBwd"})


@jax.custom_vjp
def silu_ffi(x):
    if x.size > 32:
        return jax.nn.silu(x)
    return jax.ffi.ffi_call("silu_shape_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


def _bwd(x, g):
    if x.size > 32:
        s = jax.nn.sigmoid(x)
        return (g * s * (1 + x * (1 - s)),)
    return (jax.ffi.ffi_call("silu_shape_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
