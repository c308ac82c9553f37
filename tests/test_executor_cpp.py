"""The executor's handlers: the C++ files an answer wrote, compiled by the grader and run under
the names the answer registered (autograder/executor/handlers.py, program.py)."""
import os
import tempfile
from pathlib import Path

import jax
import numpy as np
import pytest

from autograder.executor import program
from autograder.shared import poison
from autograder.shared.references import rms_norm_np64
from tests.test_executor import X, _account, _rms_prim, _text   # the executor's tests' inputs and programs


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
