"""The executor: the program an answer built, read and run with no student Python and only
the course's kernels (autograder/executor/program.py), in its own process and uid
(autograder/runner/executor_client.py)."""
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
    assert report.refused == ""
    (call,) = report.calls
    assert (call.target, call.kind, call.course) == ("rms_norm", "ffi", True)
    assert call.attributes["eps"].type == "f32"
    np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)
    # the poisoned run: the kernel's output replaced by the poison pattern, element for element
    np.testing.assert_array_equal(report.run("ffi").outputs[0].ravel(), poison.values(X.size))
    assert report.run("call:0").sizes == [X.size]
    assert "custom-call" in report.opcodes and "divide" not in report.opcodes


def test_the_value_comes_from_the_program_not_from_the_process_that_lowered_it():
    """A program that computes something else gives that, whatever its maker claims."""
    text = _text(lambda v: v * 2, X)
    report = program.report(text, [X])
    assert report.calls == [] and report.run("ffi") is None
    np.testing.assert_array_equal(report.value[0], X * 2)


def test_a_program_asked_again_is_compiled_once_unless_a_target_means_another_function(monkeypatch):
    """The executor's cache: the same text on the same operand types runs the executable of
    the first run, poisoned runs included; a target bound to another handler compiles anew."""
    compiles = []
    real = jax.stages.Lowered.compile
    monkeypatch.setattr(jax.stages.Lowered, "compile", lambda self, *a, **k: compiles.append(1) or real(self, *a, **k))
    monkeypatch.setattr(program, "_COMPILED", {})
    text = _text(_rms_prim(), X)
    first = program.report(text, [X], each=True)
    assert len(compiles) == 2   # the program and its run with the kernel poisoned (ffi = call:0)
    again = program.report(text, [X], each=True)
    assert len(compiles) == 2
    np.testing.assert_array_equal(again.value[0], first.value[0])
    np.testing.assert_array_equal(again.run("ffi").outputs[0], first.run("ffi").outputs[0])
    np.testing.assert_allclose(program.report(text, [X * 2]).value[0], rms_norm_np64(X * 2, 1e-5), rtol=1e-5)
    assert len(compiles) == 2   # other values, same types: the same executable
    other = program.Handlers()
    other.describe = lambda target: {"handler": "0xother", "course": True}
    program.report(text, [X], handlers=other)
    assert len(compiles) == 4   # the program and its poisoned run again


@pytest.mark.parametrize("make, refused", [
    (lambda: _text(lambda v: jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct(v.shape, v.dtype), v), X),
     "it runs a host callback and nobody serves it"),
    (lambda: _text(lambda v: jax.ffi.ffi_call("students_own", jax.ShapeDtypeStruct(v.shape, v.dtype))(v), X),
     "it calls the FFI target students_own, which was not registered from a function that a kernel library exports"),
    (lambda: _text(_rms_prim(), X[:2]), "the program does not take the grader's inputs (tensor<2x8xf32>)"),
    (lambda: "module { this is not a program", "the program could not be read or run (MLIRError"),
])
def test_a_program_the_grader_will_not_run_is_refused_with_the_reason(make, refused):
    report = program.handle({"op": "run", "text": make(), "args": [X]})
    assert report.value is None and report.refused.startswith(refused)


def _callback_program():
    """A program of two host callbacks around JAX math, lowered here: its text, and a serve()
    that calls the callbacks JAX registered for it (what handover.serve does in the witness),
    recording each call; context 0 serves with the host function poisoned (returns zeros)."""
    from autograder.witness import handover
    def double(a):
        return np.asarray(a) * 2
    def fn(v):
        y = jax.pure_callback(double, jax.ShapeDtypeStruct(v.shape, v.dtype), v)
        return jax.numpy.sin(y) + jax.pure_callback(double, jax.ShapeDtypeStruct(v.shape, v.dtype), y)
    handed = handover.program(fn, X)
    text, pid, recorded = handed.text, handed.pid, handed.recorded
    served = []

    def serve(index, operands, context):
        served.append((index, context))
        if context == 0:
            return [np.zeros_like(operands[0])]
        return handover.serve(pid, index, operands)
    return text, serve, served, recorded


def test_a_program_with_host_callbacks_is_run_here_each_callback_served_by_the_witness():
    text, serve, served, _ = _callback_program()
    report = program.report(text, [X], serve=serve, replace=1)
    assert report.refused == "" and [c.kind for c in report.calls] == ["host_callback"] * 2
    np.testing.assert_allclose(report.value[0], np.sin(2 * X) + 4 * X, rtol=1e-6)
    assert "sin" in report.opcodes          # JAX's math, outside the callbacks, seen here
    # every host callback poisoned: the poison's values flow through sin(y) + poison
    poisoned = report.run("host_callback").outputs[0]
    assert not np.isclose(poisoned, report.value[0]).any()
    # the run whose callbacks the witness serves with the host function poisoned (context 0)
    np.testing.assert_array_equal(report.run("replace:0").outputs[0], np.zeros_like(X))
    assert {c for _, c in served} == {-1, 0} and {i for i, _ in served} == {0, 1}


def test_an_io_callback_is_a_host_callback_but_not_a_pure_callback():
    """The doubler's and gammaln's gates ask for the piece "pure_callback": io_callback's
    custom_call carries has_side_effect, pure_callback's never does."""
    from jax.experimental import io_callback
    declared = jax.ShapeDtypeStruct(X.shape, X.dtype)
    text = _text(lambda v: (jax.pure_callback(lambda a: a * 2, declared, v),
                            io_callback(lambda a: a * 3, declared, v)), X)
    report = program.report(text, [X], serve=lambda index, operands, context: [operands[0] * (2 + index)])
    assert [c.side_effect for c in report.calls] == [False, True]
    pure, host = report.run("pure_callback").outputs, report.run("host_callback").outputs
    assert poison.changed(report.value[0], pure[0]).all() and not poison.changed(report.value[1], pure[1]).any()
    assert poison.changed(report.value[1], host[1]).all()


@pytest.mark.parametrize("result, refused", [
    (lambda ops: [ops[0].astype(np.float64)], "a host callback returned float64[3, 8] as result 0 where the program declares float32[3, 8]"),
    (lambda ops: [ops[0][:2]], "a host callback returned float32[2, 8]"),
    (lambda ops: [ops[0], ops[0]], "a host callback returned 2 arrays where the program declares 1"),
])
def test_a_served_result_unlike_the_declaration_is_refused(result, refused):
    """The witness's reply is checked against the program's own declaration."""
    text, _, _, _ = _callback_program()
    report = program.report(text, [X], serve=lambda index, ops, context: result(ops))
    assert report.value is None and refused in report.refused


def test_calls_the_witness_recorded_with_the_same_operands_are_served_from_its_record():
    """The witness's own run is recorded; the executor serves a call from that record only
    where its operands are exactly the same, and asks live for any other."""
    text, serve, served, recorded = _callback_program()
    assert [c for c, _ in recorded] == [-1] and len(recorded[0][1]) == 2
    report = program.report(text, [X], serve=serve, recorded=recorded)
    np.testing.assert_allclose(report.value[0], np.sin(2 * X) + 4 * X, rtol=1e-6)
    # the clean run: both calls from the record; the run with every callback poisoned reaches none
    assert served == []
    forged = [[-1, [[0, [X], [np.zeros_like(X)]]]]]   # a record whose operands differ from the run's: not used
    report = program.report(text, [X + 1], serve=serve, recorded=forged)
    np.testing.assert_allclose(report.value[0], np.sin(2 * (X + 1)) + 4 * (X + 1), rtol=1e-6)
    assert len(served) == 2


def test_a_kernel_that_rejects_its_attributes_is_reported_with_the_calls():
    p = Primitive("rms_norm_prim_f64")
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, lambda ctx, x, eps: jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=float(eps)),
                           platform="cpu")
    report = program.handle({"op": "run", "text": _text(lambda v: p.bind(v, eps=1e-5), X), "args": [X]})
    assert report.value is None and report.refused.startswith("running it raised")
    assert report.calls[0].attributes["eps"].type == "f64"


def _account(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


@pytest.mark.skipif(os.geteuid() != 0 or _account("executor") is None,
                    reason="the grading image's root and executor account")
def test_the_executor_process_runs_as_its_own_user_and_a_crash_is_contained():
    from autograder.runner.executor_client import Executor
    limits = settings.load().limits
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o711)
        executor = Executor(Path(tmp) / "executor", limits)
        try:
            report = executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)
            uid = int(next(l for l in open(f"/proc/{executor.proc.pid}/status") if l.startswith("Uid:")).split()[1])
            assert uid == _account("executor").pw_uid
            os.kill(executor.proc.pid, 9)
            with pytest.raises(Unanswered, match="crashed with SIGKILL"):
                executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            restarted = executor.run({"op": "run", "text": _text(lambda v: v + 1, X), "args": [X]})
            assert restarted.value[0].shape == X.shape
        finally:
            executor.close()


# ---- the C++ files the answer wrote, compiled by the grader (silu_ffi) ----

NEEDS_COMPILER = pytest.mark.skipif(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None,
                                    reason="needs the image's compiler")

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


def _answer(*targets, sources=None, headers=None):
    """A fresh Handlers holding `sources` (default: SOURCE as silu.cc) as the C++ the answer
    wrote, and the text of a program that calls `targets` one after the other (names never
    lowered in this process before)."""
    from autograder.executor.handlers import Handlers
    handlers = Handlers()
    handlers.answer_cpp(sources or {"silu.cc": SOURCE}, headers or {})

    def fn(v):
        for t in targets:
            v = jax.ffi.ffi_call(t, jax.ShapeDtypeStruct(v.shape, v.dtype))(v)
        return v
    return handlers, _text(fn, X)


@NEEDS_COMPILER
def test_the_answers_source_is_compiled_by_the_grader_and_run_under_the_names_it_registered():
    """Whatever library the student's process loaded, the values are those of the answer's
    C++ as the grader compiled it; the witness's word only picks which function a name is."""
    handlers, text = _answer("t_fwd_a", "t_bwd_a")
    bindings = {"t_fwd_a": {"symbol": "Triple3", "course": False}, "t_bwd_a": {"symbol": "Double2", "course": False}}
    report = program.report(text, [X], each=True, handlers=handlers, bindings=bindings)
    assert report.refused == ""
    np.testing.assert_allclose(report.value[0], X * 6, rtol=1e-6)
    first, second = report.calls
    assert first.handler != second.handler and not first.course
    direct = program.call(text, 0, [X.ravel()], handlers=handlers, bindings=bindings)
    np.testing.assert_allclose(direct.outputs[0], X * 3, rtol=1e-6)


@NEEDS_COMPILER
def test_the_witness_word_on_bindings_cannot_reach_beyond_the_answers_own_functions():
    handlers, text = _answer("t_one", "t_two")
    same = {"t_one": {"symbol": "Triple3"}, "t_two": {"symbol": "Triple3"}}
    report = program.report(text, [X], handlers=handlers, bindings=same)
    assert report.calls[0].handler == report.calls[1].handler   # one function, two names
    np.testing.assert_allclose(report.value[0], X * 9, rtol=1e-6)
    assert "bound to two different functions" in program.report(
        text, [X], handlers=handlers, bindings={"t_one": {"symbol": "Double2"}, "t_two": {"symbol": "Triple3"}}).refused
    handlers, text = _answer("t_three")
    nowhere = "which none of your C++ files defines as the grader compiled them (silu.cc)"
    for bindings, refused in [({"t_three": {"symbol": "system"}}, nowhere),
                              ({"t_three": {"symbol": "RmsNorm", "course": False}}, nowhere),
                              ({"t_three": {"symbol": "Triple3", "course": True}}, "which the course's kernels do not export"),
                              ({}, "was not registered from a function")]:
        assert refused in program.report(text, [X], handlers=handlers, bindings=bindings).refused
    handlers, text = _answer(poison.TARGET)
    assert "the grader's own FFI target" in program.report(text, [X], handlers=handlers, bindings={}).refused


@NEEDS_COMPILER
def test_a_source_that_does_not_compile_or_is_missing_refuses_with_the_reason():
    from autograder.executor.handlers import Handlers
    handlers, text = _answer("t_four", sources={"silu.cc": "this is not C++"})
    refused = program.report(text, [X], handlers=handlers, bindings={"t_four": {"symbol": "Triple3"}}).refused
    assert refused.startswith("the FFI target t_four is registered from Triple3, which none of your C++ files "
                              "defines as the grader compiled them; your silu.cc did not compile for the grader "
                              "(as C++17, C++20 or C++23): silu.cc:1:1: error:")
    handlers = Handlers()
    handlers.answer_cpp({}, {}, ["silu.cc was not read: it is a symbolic link"])
    refused = program.report(text, [X], handlers=handlers, bindings={"t_four": {"symbol": "Triple3"}}).refused
    assert refused == ("the FFI target t_four is registered from Triple3, but the grader found no C++ source that "
                       "your notebook wrote in its folder, its subfolders or its temporary folder (silu.cc was not "
                       "read: it is a symbolic link)")
    refused = program.report(text, [X], handlers=Handlers(), bindings={"t_four": {"symbol": "Triple3"}}).refused
    assert refused.endswith("which is not one of the course's kernels, and the grader compiles no C++ of yours "
                            "for this task")   # ffi_lowering: the runner hands over no C++


@NEEDS_COMPILER
def test_a_course_target_claimed_as_the_answers_runs_the_course_kernel_and_counts_as_the_course():
    """A module whose custom_call names a course target, with the witness claiming it is one of
    the answer's functions: the name is the course's here, whatever is claimed."""
    handlers, _ = _answer()
    text = _text(_rms_prim(), X)
    report = program.report(text, [X], handlers=handlers, bindings={"rms_norm": {"symbol": "Triple3", "course": False}})
    assert report.refused == "" and report.calls[0].course
    np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)


def _scaling(symbol, factor="k", prelude=""):
    """A C++ source whose handler `symbol` multiplies x by the C++ expression `factor`."""
    return rf"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
{prelude}
namespace ffi = xla::ffi;
static ffi::Error Impl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {{
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = ({factor}) * x.typed_data()[i];
  return ffi::Error::Success();
}}
XLA_FFI_DEFINE_HANDLER_SYMBOL({symbol}, Impl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


def _run(handlers, text, bindings):
    return program.report(text, [X], handlers=handlers, bindings={t: {"symbol": s} for t, s in bindings.items()})


@NEEDS_COMPILER
def test_every_source_is_compiled_wherever_and_however_it_is_named_with_the_headers_beside_it():
    """Sources in a subfolder and in the temporary folder, other names and extensions; a
    header beside its source (`#include "scale.h"`) and one from the notebook's folder
    (`#include "shared/k.h"`, as a compile run there with -I. finds it)."""
    sources = {"cpp/scale.cc": _scaling("TwoLayout", "kTwo", '#include "scale.h"\n#include "shared/k.h"'),
               "my_three.cpp": _scaling("ThreeLayout", "3 * kOne", '#include "shared/k.h"'),
               "tmp/tmpq1w2/five.cxx": _scaling("FiveLayout", "5")}
    headers = {"cpp/scale.h": "static const float kTwo = 2;\n", "shared/k.h": "static const float kOne = 1;\n"}
    handlers, text = _answer("t_lay_2", "t_lay_3", "t_lay_5", sources=sources, headers=headers)
    report = _run(handlers, text, {"t_lay_2": "TwoLayout", "t_lay_3": "ThreeLayout", "t_lay_5": "FiveLayout"})
    assert report.refused == ""
    np.testing.assert_allclose(report.value[0], X * 30, rtol=1e-6)
    assert len({c.handler for c in report.calls}) == 3


CXX20_ONLY = "#include <span>\nconsteval float Seven() { return 7; }"


@NEEDS_COMPILER
def test_a_source_that_needs_cxx20_is_compiled_as_cxx20():
    import subprocess
    from kernels.build import compiler
    source = _scaling("SevenCxx20", "std::span<const float>(x.typed_data(), 1).size() * Seven()", CXX20_ONLY)
    with tempfile.TemporaryDirectory() as tmp:   # the premise: C++17 refuses it
        (Path(tmp) / "s.cc").write_text(source)
        as17 = subprocess.run([compiler(), "-std=c++17", "-fsyntax-only", "-I", jax.ffi.include_dir(), "s.cc"],
                              cwd=tmp, capture_output=True)
        assert as17.returncode != 0
    handlers, text = _answer("t_cxx20", sources={"kernels/silu20.cc": source})
    report = _run(handlers, text, {"t_cxx20": "SevenCxx20"})
    assert report.refused == ""
    np.testing.assert_allclose(report.value[0], X * 7, rtol=1e-6)


@NEEDS_COMPILER
def test_a_symbol_two_sources_define_differently_is_refused_and_a_copy_is_one_function():
    handlers, text = _answer("t_twice", sources={"good.cc": _scaling("TwiceDefined", "2"),
                                                 "silu.cc": _scaling("TwiceDefined", "3")})
    assert _run(handlers, text, {"t_twice": "TwiceDefined"}).refused == (
        "the FFI target t_twice is registered from TwiceDefined, which your C++ files good.cc, silu.cc each "
        "define differently, so the grader cannot tell which one you registered; define it in one file only")
    copy = _scaling("CopiedOnce", "4")
    handlers, text = _answer("t_copy", sources={"silu.cc": copy, "cpp/silu.cc": copy})
    report = _run(handlers, text, {"t_copy": "CopiedOnce"})
    assert report.refused == ""
    np.testing.assert_allclose(report.value[0], X * 4, rtol=1e-6)


@NEEDS_COMPILER
def test_a_broken_source_matters_only_when_the_needed_symbol_is_found_nowhere():
    sources = {"silu.cc": _scaling("NeededSix", "6"), "old_attempt.cc": "Needed Missing { this is not C++",
               "scratch.cc": "int broken("}
    handlers, text = _answer("t_needed", sources=sources)
    report = _run(handlers, text, {"t_needed": "NeededSix"})
    assert report.refused == ""
    np.testing.assert_allclose(report.value[0], X * 6, rtol=1e-6)
    handlers, text = _answer("t_missing", sources=sources)
    refused = _run(handlers, text, {"t_missing": "Missing"}).refused
    # the broken file that names the symbol is the one reported, with its compiler errors
    assert refused.startswith("the FFI target t_missing is registered from Missing, which none of your C++ files "
                              "defines as the grader compiled them (silu.cc); your old_attempt.cc did not compile "
                              "for the grader (as C++17, C++20 or C++23): old_attempt.cc:1:1: error:")


@pytest.mark.skipif(os.geteuid() != 0 or _account("student") is None, reason="the grading image's root and student account")
def test_the_runner_reads_only_the_students_own_cpp_files_in_its_folders():
    from autograder.runner.executor_client import read_answer_cpp
    student = _account("student")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        files = {"silu.cc": "a", "cpp/x.cpp": "b", "cpp/x.h": "c", "tmp/tmpab/t.c++": "d", "Up.C": "e",
                 "inc/y.hpp": "f", "notes.txt": "g", ".cache/kernels/cached.cc": "h", "big.cc": "i" * ((1 << 20) + 1),
                 "latin1.cc": b"\xe9", "theirs.cc": "j", "target.cc.txt": "k"}
        for path, text in files.items():
            (home / path).parent.mkdir(parents=True, exist_ok=True)
            (home / path).write_bytes(text if isinstance(text, bytes) else text.encode())
        (home / "link.cc").symlink_to(home / "target.cc.txt")
        (home / "linked_dir").symlink_to(home / "cpp", target_is_directory=True)
        for path in home.rglob("*"):
            if path.name != "theirs.cc":
                os.chown(path, student.pw_uid, student.pw_gid, follow_symlinks=False)
        found = read_answer_cpp(home, "student")
    assert found["sources"] == {"silu.cc": "a", "Up.C": "e", "cpp/x.cpp": "b", "tmp/tmpab/t.c++": "d"}
    assert found["headers"] == {"cpp/x.h": "c", "inc/y.hpp": "f"}
    assert sorted(found["skipped"]) == ["big.cc was not read: it is larger than 1 MB",
                                        "latin1.cc was not read: it is not UTF-8 text",
                                        "link.cc was not read: it is a symbolic link",
                                        "theirs.cc was not read: it is not a file the notebook wrote"]
