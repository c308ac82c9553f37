"""The witness's registry of FFI targets (autograder/witness/registry.py): every registration
recorded with the C function it binds, so two names for one handler are one handler and the
course's kernels are told apart; and the grader's poison handler it registers."""
import uuid

import jax
import jax.numpy as jnp
import numpy as np

from autograder.shared import poison
from autograder.witness import registry
from kernels import build as kb

registry.install()
import kernels.rms_norm  # noqa: E402,F401  (registered after install: its handler is recorded)

X = jnp.asarray(np.random.default_rng(0).uniform(0.5, 6.0, (3, 5)).astype(np.float32))


def test_poison_values_are_what_the_kernel_writes():
    out = jax.ffi.ffi_call(poison.TARGET, (jax.ShapeDtypeStruct((7, 3), jnp.float32),
                                           jax.ShapeDtypeStruct((2,), jnp.float32)))(X)
    np.testing.assert_array_equal(np.asarray(out[0]).ravel(), poison.values(21))
    np.testing.assert_array_equal(np.asarray(out[1]), poison.values(2))
    again = jax.ffi.ffi_call(poison.TARGET_AGAIN, jax.ShapeDtypeStruct((21,), jnp.float32))(X)
    np.testing.assert_array_equal(np.asarray(again), poison.values(21, poison.SALT_AGAIN))
    assert not np.any(np.asarray(again) == poison.values(21))   # the other salt: other values
    pool = poison.values(10000)   # 23 random bits: a few birthday collisions, no pattern
    assert len(set(pool.tolist())) > 9990 and np.all((np.abs(pool) >= 1) & (np.abs(pool) < 2))


SAME_HANDLER_TWICE = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Copy, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


def test_two_names_for_one_handler_are_one_handler(tmp_path):
    src = tmp_path / "copy.cc"
    src.write_text(SAME_HANDLER_TWICE)
    a, b = f"copy_a_{uuid.uuid4().hex[:6]}", f"copy_b_{uuid.uuid4().hex[:6]}"
    kb.load_and_register(src, {a: "Copy"})
    kb.load_and_register(src, {b: "Copy"})
    ha, hb = registry.handler(a), registry.handler(b)
    assert ha["handler"] == hb["handler"] and not ha["course"]
    assert registry.handler("rms_norm")["course"] and registry.handler("rms_norm")["handler"] != ha["handler"]
