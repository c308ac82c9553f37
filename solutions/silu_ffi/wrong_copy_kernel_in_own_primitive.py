"""Wrong: two real, distinct FFI handlers that only copy a buffer; the SiLU and its
derivative are computed by primitives of the answer's own ("swish_core",
"swish_core_grad") lowered with jnp, so no list of primitive names sees them. Every
value is right, both custom_calls are there and the outputs come straight from them;
only the compiled programs show the exp and the division outside the kernels, in every
test (the public structure tests included: they earned 2 points before).

score: 0
messages:
  - computes math in JAX outside your kernels
  - "(found: divide, exp)"
"""
from jax.extend.core import Primitive
from jax.interpreters import batching, mlir

Path("silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}

static ffi::Error CopyOtherImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = x.element_count() - 1; i >= 0; --i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(CoreCopy, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(CoreCopyGrad, CopyOtherImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"core_copy": "CoreCopy", "core_copy_grad": "CoreCopyGrad"})


def _swish(x):
    return x / (1 + jnp.exp(-x))


def _swish_grad(x, g):
    s = 1 / (1 + jnp.exp(-x))
    return g * s * (1 + x * (1 - s))


swish_core = Primitive("swish_core")
swish_core.def_impl(_swish)
swish_core.def_abstract_eval(lambda x: x)
mlir.register_lowering(swish_core, mlir.lower_fun(_swish, multiple_results=False))
batching.defvectorized(swish_core)

swish_core_grad = Primitive("swish_core_grad")
swish_core_grad.def_impl(_swish_grad)
swish_core_grad.def_abstract_eval(lambda x, g: x)
mlir.register_lowering(swish_core_grad, mlir.lower_fun(_swish_grad, multiple_results=False))
batching.defbroadcasting(swish_core_grad)


def _copy(target, v):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(v.shape, v.dtype), vmap_method="broadcast_all")(v)


@jax.custom_vjp
def silu_ffi(x):
    return _copy("core_copy", swish_core.bind(x))


silu_ffi.defvjp(lambda x: (silu_ffi(x), x),
                lambda x, g: (_copy("core_copy_grad", swish_core_grad.bind(x, g)),))
