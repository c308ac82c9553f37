"""Python side of rms_norm.cc: registers the FFI targets rms_norm, rms_norm_fwd and
rms_norm_bwd at import and exposes rms_norm(x, eps) with a custom_vjp (chapter 5.10)."""
from functools import partial
from pathlib import Path

import jax
import numpy as np

from autograder.shared.references import rms_norm_np64  # noqa: F401  (the chapter's notebooks import it from here)
from kernels.build import load_and_register

SOURCE = Path(__file__).with_name("rms_norm.cc")
TARGETS = {"rms_norm": "RmsNorm", "rms_norm_fwd": "RmsNormFwd", "rms_norm_bwd": "RmsNormBwd"}
library = load_and_register(SOURCE, TARGETS)


def rms_norm_ffi(x, eps=1e-5):
    """One FFI call, no gradient; the kernel treats every leading dimension as a row."""
    return jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x, eps=np.float32(eps))  # Attr<float>


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def rms_norm(x, eps=1e-5):
    return rms_norm_ffi(x, eps)


def _rms_norm_fwd(x, eps):
    y, s = jax.ffi.ffi_call(
        "rms_norm_fwd",
        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], x.dtype)),
        vmap_method="broadcast_all")(x, eps=np.float32(eps))
    return y, (s, x)


def _rms_norm_bwd(eps, res, ct_y):
    s, x = res
    ct_x = jax.ffi.ffi_call("rms_norm_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(s, x, ct_y)
    return (ct_x,)


rms_norm.defvjp(_rms_norm_fwd, _rms_norm_bwd)
