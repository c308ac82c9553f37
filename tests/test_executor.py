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
     "it calls the FFI target students_own, which the grader does not run"),
    (lambda: _text(_rms_prim(), X[:2]), "the program does not take the grader's inputs (tensor<2x8xf32>)"),
    (lambda: "module { this is not a program", "the program could not be read or run (MLIRError"),
])
def test_a_program_the_grader_will_not_run_is_refused_with_the_reason(make, refused):
    report = program.run_safely(make(), [X])
    assert report["value"] is None and report["refused"].startswith(refused)


def test_a_kernel_that_rejects_its_attributes_is_reported_with_the_calls():
    p = Primitive("rms_norm_prim_f64")
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, lambda ctx, x, eps: jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=float(eps)),
                           platform="cpu")
    report = program.run_safely(_text(lambda v: p.bind(v, eps=1e-5), X), [X])
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
            report = executor.run(_text(_rms_prim(), X), [X])
            np.testing.assert_allclose(report["value"][0], rms_norm_np64(X, 1e-5), rtol=1e-5)
            uid = int(next(l for l in open(f"/proc/{executor.proc.pid}/status") if l.startswith("Uid:")).split()[1])
            assert uid == _account("executor").pw_uid
            os.kill(executor.proc.pid, 9)
            with pytest.raises(Unanswered, match="crashed with SIGKILL"):
                executor.run(_text(_rms_prim(), X), [X])
            assert executor.run(_text(lambda v: v + 1, X), [X])["value"][0].shape == X.shape  # restarted
        finally:
            executor.close()
