"""The executor: the program an answer built, read and run with no student Python and only
the course's kernels (autograder/executor/program.py), in its own process and uid
(autograder/runner/executor.py)."""
import os
import pwd
import tempfile
from pathlib import Path

import jax
import numpy as np
import pytest
from jax.extend.core import Primitive
from jax.interpreters import mlir

import kernels.rms_norm  # noqa: F401  (registers rms_norm here, for lowering)
from autograder.executor import program
from autograder.shared import config as settings, poison
from autograder.shared.probe import Unanswered
from autograder.shared.references import rms_norm_np64

X = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)


def _rms_prim():
    p = Primitive("rms_norm_prim_test")
    p.def_impl(lambda x, eps: x)
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
    return lambda v: p.bind(v, eps=np.float32(1e-5))


def _text(fn, *args):
    return jax.jit(fn).lower(*args).as_text()


def test_a_program_is_read_and_run_on_the_graders_input():
    report = program.report(_text(_rms_prim(), X), [X], each=True)
    assert report["refused"] == ""
    (call,) = report["calls"]
    assert (call["target"], call["kind"], call["course"]) == ("rms_norm", "ffi", True)
    assert call["attributes"]["eps"].type == "f32"
    np.testing.assert_allclose(report["value"][0], rms_norm_np64(X, 1e-5), rtol=1e-5)
    # the poisoned run: the kernel's output replaced by the poison pattern, element for element
    np.testing.assert_array_equal(report["poisoned"]["ffi"]["outputs"][0].ravel(), poison.values(X.size))
    assert report["poisoned"]["call:0"]["sizes"] == [X.size]
    assert "custom-call" in report["opcodes"] and "divide" not in report["opcodes"]


def test_the_value_comes_from_the_program_not_from_the_process_that_lowered_it():
    """A program that computes something else gives that, whatever its maker claims."""
    text = _text(lambda v: v * 2, X)
    report = program.report(text, [X])
    assert report["calls"] == [] and report["poisoned"]["ffi"] is None
    np.testing.assert_array_equal(report["value"][0], X * 2)


@pytest.mark.parametrize("make, refused", [
    (lambda: _text(lambda v: jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct(v.shape, v.dtype), v), X),
     "it runs a host callback"),
    (lambda: _text(lambda v: jax.ffi.ffi_call("students_own", jax.ShapeDtypeStruct(v.shape, v.dtype))(v), X),
     "it calls the FFI target students_own, which was not registered from a function that a kernel library exports"),
    (lambda: _text(_rms_prim(), X[:2]), "the program does not take the grader's inputs (tensor<2x8xf32>)"),
    (lambda: "module { this is not a program", "the program could not be read or run (MLIRError"),
])
def test_a_program_the_grader_will_not_run_is_refused_with_the_reason(make, refused):
    report = program.handle({"op": "run", "text": make(), "args": [X]})
    assert report["value"] is None and report["refused"].startswith(refused)


def test_a_kernel_that_rejects_its_attributes_is_reported_with_the_calls():
    p = Primitive("rms_norm_prim_f64")
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, lambda ctx, x, eps: jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=float(eps)),
                           platform="cpu")
    report = program.handle({"op": "run", "text": _text(lambda v: p.bind(v, eps=1e-5), X), "args": [X]})
    assert report["value"] is None and report["refused"].startswith("running it raised")
    assert report["calls"][0]["attributes"]["eps"].type == "f64"


def _account(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


@pytest.mark.skipif(os.geteuid() != 0 or _account("executor") is None,
                    reason="the grading image's root and executor account")
def test_the_executor_process_runs_as_its_own_user_and_a_crash_is_contained():
    from autograder.runner.executor import Executor
    limits = settings.load().limits
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o711)
        executor = Executor(Path(tmp) / "executor", limits)
        try:
            report = executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            np.testing.assert_allclose(report["value"][0], rms_norm_np64(X, 1e-5), rtol=1e-5)
            uid = int(next(l for l in open(f"/proc/{executor.proc.pid}/status") if l.startswith("Uid:")).split()[1])
            assert uid == _account("executor").pw_uid
            os.kill(executor.proc.pid, 9)
            with pytest.raises(Unanswered, match="crashed with SIGKILL"):
                executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            restarted = executor.run({"op": "run", "text": _text(lambda v: v + 1, X), "args": [X]})
            assert restarted["value"][0].shape == X.shape
        finally:
            executor.close()


# ---- the answer's kernel source, compiled by the grader (silu_ffi) ----

SOURCE = r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error Scale(float k, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = k * x.typed_data()[i];
  return ffi::Error::Success();
}
static ffi::Error Triple(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) { return Scale(3, x, y); }
static ffi::Error Double(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) { return Scale(2, x, y); }
XLA_FFI_DEFINE_HANDLER_SYMBOL(Triple3, Triple, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(Double2, Double, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


def _answer(*targets):
    """A fresh Handlers holding SOURCE as the answer's silu.cc, and the text of a program
    that calls `targets` one after the other (names never lowered in this process before)."""
    from autograder.executor.handlers import Handlers
    handlers = Handlers()
    handlers.answer_source("silu.cc", SOURCE)

    def fn(v):
        for t in targets:
            v = jax.ffi.ffi_call(t, jax.ShapeDtypeStruct(v.shape, v.dtype))(v)
        return v
    return handlers, _text(fn, X)


@pytest.mark.skipif(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None, reason="needs the image's compiler")
def test_the_answers_source_is_compiled_by_the_grader_and_run_under_the_names_it_registered():
    """Whatever library the student's process loaded, the values are those of silu.cc as the
    grader compiled it; the witness's word only picks which of its functions a name is."""
    handlers, text = _answer("t_fwd_a", "t_bwd_a")
    bindings = {"t_fwd_a": {"symbol": "Triple3", "course": False}, "t_bwd_a": {"symbol": "Double2", "course": False}}
    report = program.report(text, [X], each=True, handlers=handlers, bindings=bindings)
    assert report["refused"] == ""
    np.testing.assert_allclose(report["value"][0], X * 6, rtol=1e-6)
    first, second = report["calls"]
    assert first["handler"] != second["handler"] and not first["course"]
    direct = program.call(text, 0, [X.ravel()], handlers=handlers, bindings=bindings)
    np.testing.assert_allclose(direct["outputs"][0], X * 3, rtol=1e-6)


@pytest.mark.skipif(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None, reason="needs the image's compiler")
def test_the_witness_word_on_bindings_cannot_reach_beyond_the_answers_own_functions():
    handlers, text = _answer("t_one", "t_two")
    same = {"t_one": {"symbol": "Triple3"}, "t_two": {"symbol": "Triple3"}}
    report = program.report(text, [X], handlers=handlers, bindings=same)
    assert report["calls"][0]["handler"] == report["calls"][1]["handler"]   # one function, two names
    np.testing.assert_allclose(report["value"][0], X * 9, rtol=1e-6)
    assert "bound to two different functions" in program.report(
        text, [X], handlers=handlers, bindings={"t_one": {"symbol": "Double2"}, "t_two": {"symbol": "Triple3"}})["refused"]
    handlers, text = _answer("t_three")
    for bindings, refused in [({"t_three": {"symbol": "system"}}, "which your silu.cc as the grader compiled it does not export"),
                              ({"t_three": {"symbol": "RmsNorm", "course": False}}, "does not export"),
                              ({}, "was not registered from a function")]:
        assert refused in program.report(text, [X], handlers=handlers, bindings=bindings)["refused"]
    handlers, text = _answer(poison.TARGET)
    assert "the grader's own FFI target" in program.report(text, [X], handlers=handlers, bindings={})["refused"]


@pytest.mark.skipif(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None, reason="needs the image's compiler")
def test_a_source_that_does_not_compile_or_is_missing_refuses_with_the_reason():
    from autograder.executor.handlers import Handlers
    handlers, text = _answer("t_four")
    handlers.answer_source("silu.cc", "this is not C++")
    refused = program.report(text, [X], handlers=handlers, bindings={"t_four": {"symbol": "Triple3"}})["refused"]
    assert refused.startswith("your silu.cc did not compile for the grader")
    handlers = Handlers()
    handlers.answer_source("silu.cc", None, "the notebook wrote no silu.cc in its folder")
    refused = program.report(text, [X], handlers=handlers, bindings={"t_four": {"symbol": "Triple3"}})["refused"]
    assert "the notebook wrote no silu.cc in its folder" in refused


@pytest.mark.skipif(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None, reason="needs the image's compiler")
def test_a_course_target_claimed_as_the_answers_runs_the_course_kernel_and_counts_as_the_course():
    """A module whose custom_call names a course target, with the witness claiming it is one of
    the answer's functions: the name is the course's here, whatever is claimed."""
    handlers, _ = _answer()
    text = _text(_rms_prim(), X)
    report = program.report(text, [X], handlers=handlers, bindings={"rms_norm": {"symbol": "Triple3", "course": False}})
    assert report["refused"] == "" and report["calls"][0]["course"]
    np.testing.assert_allclose(report["value"][0], rms_norm_np64(X, 1e-5), rtol=1e-5)
