"""Python side of reduce_sum.cc, the grader's kernel for reduce_sum_rules: registers the FFI
target __grader_reduce_sum__ at import. `reduce_sum(x, axis)` is one call of it; `lowering`
is the lowering rule the grader gives custom_reduce_sum_p while it grades
(autograder/assignments/reduce_sum_rules/witness.py), so the compiled program shows every place an answer
binds the primitive, with its axes as the kernel's `axis` attribute."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from kernels.build import load_and_register

SOURCE = Path(__file__).with_name("reduce_sum.cc")
TARGET = "__grader_reduce_sum__"
TARGETS = {TARGET: "ReduceSum"}
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))   # what the kernel sums
library = load_and_register(SOURCE, TARGETS)
_ffi_lowering = jax.ffi.ffi_lowering(TARGET)


def _attribute(axis) -> np.ndarray:
    # An i64 array: a tuple would become an MLIR ArrayAttr, which XLA's FFI does not decode.
    return np.asarray(tuple(axis), np.int64)


def reduce_sum(x, axis):
    """The sum of x over the dimensions `axis` (distinct, in any order), as one FFI call."""
    x = jnp.asarray(x)
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axis)
    return jax.ffi.ffi_call(TARGET, jax.ShapeDtypeStruct(kept, x.dtype))(x, axis=_attribute(axis))


def lowering(ctx, x, *, axis):
    """The lowering rule of a primitive summing its operand over `axis`: one custom_call to
    the kernel."""
    return _ffi_lowering(ctx, x, axis=_attribute(axis))
