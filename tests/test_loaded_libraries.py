"""The C++ that is graded is the library the notebook loaded: the loader's audit module copies
it as it is loaded (kernels/loaded_audit.c), the runner hands the copies to the executor
(autograder/runner/libraries.py), and the executor runs the function the witness names, at
its offset in the copy (autograder/executor/handlers.py)."""
import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np
import pytest

from autograder.executor import program
from autograder.executor.handlers import Handlers
from autograder.shared import config as settings, linkmap
from tests.test_executor import X, _account, _rms_prim, _text

AUDIT = Path(os.environ.get("JAX_INTEROP_PREBUILT_KERNELS", "/nonexistent")) / linkmap.AUDIT_MODULE
IN_IMAGE = pytest.mark.skipif(not AUDIT.is_file() or os.geteuid() != 0 or _account("student") is None
                              or _account("executor") is None,
                              reason="the grading image: root, its accounts and the audit module")


def _scaling(symbol: str, factor: str, prelude: str = "") -> str:
    """C++ whose handler `symbol` multiplies x by the C++ expression `factor`."""
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


def _compile(folder: Path, name: str, source: str, *flags: str) -> Path:
    (folder / f"{name}.cc").write_text(source)
    out = folder / f"lib{name}.so"
    subprocess.run(["clang++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(), *flags,
                    "-o", str(out), str(folder / f"{name}.cc")], check=True, cwd=folder)
    return out


def _program(*targets):
    def fn(v):
        for t in targets:
            v = jax.ffi.ffi_call(t, jax.ShapeDtypeStruct(v.shape, v.dtype))(v)
        return v
    return _text(fn, X)


# ---- what the witness did, as the student, under the audit module ----

NOTEBOOK = r"""
import ctypes, json, os, subprocess, sys, tempfile
from pathlib import Path
import jax
from autograder.witness import registry
registry.install()
inc = jax.ffi.include_dir()
def build(name, source, *flags, folder="."):
    Path(folder, name + ".cc").write_text(source)
    out = str(Path(folder, "lib" + name + ".so"))
    subprocess.run(["clang++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", inc, *flags, "-o", out,
                    str(Path(folder, name + ".cc"))], check=True)
    return out
def register(library, **targets):
    for target, symbol in targets.items():
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(library, symbol)), platform="cpu")
src = json.loads(sys.argv[1])
# the everyday route: one library, two handlers
lib = ctypes.CDLL(os.path.abspath(build("silu", src["two"])))
register(lib, w_triple="Triple3", w_double="Double2", w_alias="Triple3")
# built in a temporary folder, loaded, then source and library deleted
tmp = tempfile.mkdtemp()
gone = ctypes.CDLL(build("gone", src["five"], folder=tmp))
register(gone, w_gone="FiveX")
subprocess.run(["rm", "-rf", tmp], check=True)
# overwritten after it was loaded: the library and its source replaced by other code
over = ctypes.CDLL(os.path.abspath(build("over", src["eleven"])))
register(over, w_over="ElevenX")
os.unlink("libover.so")
build("over", src["thirteen"])
# a second library of its own, linked with -l and found by rpath
Path("factor.cc").write_text('extern "C" float Factor() { return 7; }')
subprocess.run(["clang++", "-shared", "-fPIC", "-o", "libfactor.so", "factor.cc"], check=True)
user = build("user", src["uses_factor"], "-L.", "-lfactor", "-Wl,-rpath," + os.getcwd())
register(ctypes.CDLL(os.path.abspath(user)), w_dep="UsesFactor")
# every flag of an ordinary build, one library each (compiled two at a time)
from concurrent.futures import ThreadPoolExecutor
flags = json.loads(sys.argv[2])
with ThreadPoolExecutor(2) as pool:
    built = list(pool.map(lambda i: build(f"flag{i}", src["flag"].replace("FlagX", f"Flag{i}").replace("(7)", f"({i + 2})"),
                                          *flags[i].split()), range(len(flags))))
for i, path in enumerate(built):
    address = getattr(ctypes.CDLL(os.path.abspath(path)), f"Flag{i}Address")
    address.restype = ctypes.c_void_p
    jax.ffi.register_ffi_target(f"w_flag{i}", jax.ffi.pycapsule(ctypes.c_void_p(address())), platform="cpu")
print(json.dumps({"pid": os.getpid(), "bindings": registry.bindings()}))
"""

TWO_HANDLERS = r"""
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
SOURCES = {"two": TWO_HANDLERS, "five": _scaling("FiveX", "5"), "eleven": _scaling("ElevenX", "11"),
           "thirteen": _scaling("ElevenX", "13"),
           "uses_factor": _scaling("UsesFactor", "Factor()", 'extern "C" float Factor();'),
           # the handler's address from an exported function: with -fvisibility=hidden it has no name
           "flag": _scaling("FlagX", "(7)") + 'extern "C" __attribute__((visibility("default"))) void* '
                                               'FlagXAddress() { return (void*)&FlagX; }\n'}
# Flags of everyday and hardened builds, and those whose code differs (all graded as built).
FLAGS = ["-m64", "-flto", "-ftree-vectorize", "-mfpmath=sse", "-fstack-clash-protection", "-Wl,--strip-all",
         "-Wl,-z,relro -Wl,-z,now -Wl,-z,defs -Wl,-z,noexecstack", "-O0", "-std=c++20", "-ffast-math -march=x86-64-v2",
         "-fvisibility=hidden -fno-exceptions"]


@pytest.fixture(scope="module")
def witness():
    """A student's process that built and loaded libraries by several routes, run as the
    student with the audit module, and the executor with its folder: (home, pid, bindings,
    limits, executor folder)."""
    student = _account("student")
    top = Path(tempfile.mkdtemp())
    os.chmod(top, 0o711)
    home = top / "student"
    home.mkdir()
    os.chown(home, student.pw_uid, student.pw_gid)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home), "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "LD_AUDIT": str(AUDIT),
           "JAX_INTEROP_LOADED_CAPTURE": str(home / ".cache" / "loaded"),
           "JAX_INTEROP_PREBUILT_KERNELS": os.environ["JAX_INTEROP_PREBUILT_KERNELS"]}
    out = subprocess.run(["setpriv", f"--reuid={student.pw_uid}", f"--regid={student.pw_gid}", "--clear-groups",
                          sys.executable, "-c", NOTEBOOK, json.dumps(SOURCES), json.dumps(FLAGS)],
                         cwd=home, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    yield home, seen["pid"], seen["bindings"], settings.load().limits, top   # top: root's alone
    shutil.rmtree(top, ignore_errors=True)


def _executor(witness, runs_answer=True):
    from autograder.runner.executor_client import Executor
    from autograder.runner.libraries import Libraries
    home, pid, _, limits, top = witness
    place = Path(tempfile.mkdtemp(dir=top))   # one per test: the fixture's witness is shared
    os.chmod(place, 0o711)
    executor = Executor(place / "executor", limits)
    executor.libraries = Libraries(home, _account("student").pw_uid, limits, place / "libraries", lambda: pid,
                                   runs_answer, reader_gid=_account("executor").pw_gid)
    return executor


@IN_IMAGE
def test_the_executor_runs_each_library_as_the_notebook_loaded_it_whatever_became_of_its_files(witness):
    """Two handlers of one library; a library whose folder was deleted after loading; one whose
    file and source were overwritten after loading (the loaded code, x11, not the later x13);
    one that needs another library of the notebook's (-lfactor, rpath), found as loaded; one
    library per build flag (LTO, hardening, stripped, hidden symbols: the handler is found by
    its offset, not its name)."""
    _, _, bindings, _, _ = witness
    executor = _executor(witness)
    try:
        for targets, factor in [(("w_triple", "w_double"), 6), (("w_gone",), 5), (("w_over",), 11),
                                (("w_dep",), 7)]:
            report = executor.run({"op": "run", "text": _program(*targets), "args": [X], "bindings": bindings})
            assert report.refused == "", targets
            np.testing.assert_allclose(report.value[0], X * factor, rtol=1e-6)
            assert not any(c.course for c in report.calls)
        two = executor.run({"op": "run", "text": _program("w_triple", "w_alias"), "args": [X], "bindings": bindings})
        assert two.calls[0].handler == two.calls[1].handler   # one function, two names: one handler
        np.testing.assert_allclose(two.value[0], X * 9, rtol=1e-6)
        for i, flags in enumerate(FLAGS):
            report = executor.run({"op": "run", "text": _program(f"w_flag{i}"), "args": [X], "bindings": bindings})
            assert report.refused == "", flags
            np.testing.assert_allclose(report.value[0], X * (i + 2), rtol=1e-6, err_msg=flags)
        kept = sorted(p.name for p in executor.libraries.target.glob("*.so"))
        assert len(kept) == 5 + len(FLAGS) and all(len(n) == len("0" * 64 + ".so") for n in kept)   # by sha256
    finally:
        executor.close()


@IN_IMAGE
def test_a_task_that_runs_no_cpp_of_the_answers_says_so(witness):
    executor = _executor(witness, runs_answer=False)
    try:
        report = executor.run({"op": "run", "text": _program("w_triple"), "args": [X], "bindings": witness[2]})
    finally:
        executor.close()
    assert report.refused == ("the FFI target w_triple is registered from Triple3 in libsilu.so, which is not one "
                              "of the course's kernels, and this task runs no C++ of yours")


@IN_IMAGE
def test_a_library_with_no_copy_is_refused_with_what_to_do(witness):
    home, pid, bindings, limits, folder = witness
    from autograder.runner.libraries import Libraries
    libraries = Libraries(home, _account("student").pw_uid, limits, folder / "other", lambda: pid + 10 ** 6, True)
    claim = libraries.claims(bindings)["w_triple"]["library"]
    assert "sha256" not in claim and claim["missing"].startswith(
        "libsilu.so, of which the grader found no copy taken when your notebook loaded it")


@IN_IMAGE
def test_the_runner_copies_only_the_students_own_regular_files(witness):
    """A capture replaced by a link, or by a file the student does not own, is not copied."""
    home, pid, bindings, limits, folder = witness
    from autograder.runner.libraries import Libraries
    captures = home / ".cache" / "loaded"
    records = {p.read_text().split("\n", 1)[1]: p for p in captures.glob(f"{pid}-*.txt")}
    silu = records[next(n for n in records if n.endswith("libsilu.so"))].with_suffix(".so")
    saved = silu.read_bytes()
    try:
        silu.unlink()
        silu.symlink_to("/etc/passwd")
        libraries = Libraries(home, _account("student").pw_uid, limits, folder / "linked", lambda: pid, True)
        assert "it is a symbolic link" in libraries.claims(bindings)["w_triple"]["library"]["missing"]
        silu.unlink()
        silu.write_bytes(saved)   # root's now
        libraries = Libraries(home, _account("student").pw_uid, limits, folder / "rooted", lambda: pid, True)
        assert "it is not a file the notebook wrote" in libraries.claims(bindings)["w_triple"]["library"]["missing"]
    finally:
        silu.unlink()
        silu.write_bytes(saved)
        os.chown(silu, _account("student").pw_uid, _account("student").pw_gid)


# ---- the executor's handlers on their own: the witness's word reaches only the answer's functions ----

def _handlers_with(tmp: Path, monkeypatch, *libraries: Path) -> tuple[Handlers, dict]:
    """Handlers whose folder of copies holds `libraries` by sha256; {library: its claim's base}."""
    folder = tmp / "copies"
    folder.mkdir(exist_ok=True)
    digests = {}
    for library in libraries:
        data = library.read_bytes()
        digests[library] = hashlib.sha256(data).hexdigest()
        (folder / f"{digests[library]}.so").write_bytes(data)
    monkeypatch.setenv("JAX_INTEROP_LOADED_LIBRARIES", str(folder))
    return Handlers(), digests


def _claim(library: Path, digest: str, symbol: str, **more) -> dict:
    """The witness's claim for `symbol` of `library` (its offset read from the file itself)."""
    loaded = ctypes.CDLL(str(library))
    offset = ctypes.cast(getattr(loaded, symbol), ctypes.c_void_p).value - linkmap.base_of(loaded)
    return {"symbol": symbol, "course": False, "offset": offset,
            "library": {"name": str(library), "base": 0, "path": str(library), "sha256": digest, **more}}


NEEDS_COMPILER = pytest.mark.skipif(shutil.which("clang++") is None or os.environ.get("JAX_INTEROP_PREBUILT_KERNELS") is None,
                                    reason="the image's compiler")


@NEEDS_COMPILER
def test_the_witness_word_reaches_only_functions_of_the_libraries_named(tmp_path, monkeypatch):
    lib = _compile(tmp_path, "pair", _scaling("PairFour", "4"))
    handlers, digests = _handlers_with(tmp_path, monkeypatch, lib)
    good = _claim(lib, digests[lib], "PairFour")
    text = _program("h_one", "h_two")
    report = program.report(text, [X], handlers=handlers, bindings={"h_one": good, "h_two": good})
    assert report.refused == "" and report.calls[0].handler == report.calls[1].handler
    np.testing.assert_allclose(report.value[0], X * 16, rtol=1e-6)
    far = {**good, "offset": 1 << 40}
    assert program.report(_program("h_far"), [X], handlers=handlers, bindings={"h_far": far}).refused == (
        "the FFI target h_far is registered from an address outside the library it names "
        f"({digests[lib]}.so)")
    other = {**good, "offset": good["offset"] + 16}
    assert program.report(text, [X], handlers=handlers, bindings={"h_one": other}).refused == (
        "the FFI target h_one was bound to two different functions")
    missing = {**good, "library": {**good["library"], "sha256": None, "missing": "libpair.so, of which ..."}}
    assert program.report(_program("h_none"), [X], handlers=handlers, bindings={"h_none": missing}).refused == (
        "the FFI target h_none is registered from PairFour in libpair.so, of which ...")


@NEEDS_COMPILER
def test_the_course_library_under_a_students_name_is_the_course_kernel_and_the_poison_is_refused(tmp_path, monkeypatch):
    """Bytes equal to the course's library (a copy the notebook loaded) are the course's: only
    its handlers, counted as the course's; the poison's bytes are refused."""
    import kernels.rms_norm as course
    from autograder.shared import poison
    from kernels.build import build
    import kernels
    copy = tmp_path / "librms_copy.so"
    shutil.copyfile(course.library.path, copy)
    venom = tmp_path / "libvenom.so"
    shutil.copyfile(build(Path(kernels.__file__).with_name("poison.cc"))[0], venom)
    handlers, digests = _handlers_with(tmp_path, monkeypatch, copy, venom)
    claim = _claim(copy, digests[copy], "RmsNorm")
    report = program.report(_text(lambda v: jax.ffi.ffi_call("my_rms", jax.ShapeDtypeStruct(v.shape, v.dtype))(
        v, eps=np.float32(1e-5)), X), [X], handlers=handlers, bindings={"my_rms": claim})
    assert report.refused == "" and report.calls[0].course
    helper = {**claim, "offset": claim["offset"] + 1}
    assert program.report(_program("my_rms_helper"), [X], handlers=handlers,
                          bindings={"my_rms_helper": helper}).refused.endswith("which is not one of the course's kernels")
    assert program.report(_program("my_poison"), [X], handlers=handlers,
                          bindings={"my_poison": _claim(venom, digests[venom], poison.SYMBOL)}).refused == (
        f"the FFI target my_poison is registered from {poison.SYMBOL} in the grader's own poison kernel")


@NEEDS_COMPILER
def test_a_library_that_does_not_load_here_says_why(tmp_path, monkeypatch):
    """One that needs a library of the notebook's the notebook never loaded, and one that is
    not a shared library of this machine."""
    subprocess.run(["clang++", "-shared", "-fPIC", "-o", str(tmp_path / "libhelp.so"), "-x", "c++", "-"],
                   input=b'extern "C" float Helper() { return 2; }', check=True)
    needs = _compile(tmp_path, "needs", _scaling("NeedsHelper", "Helper()", 'extern "C" float Helper();'),
                     f"-L{tmp_path}", "-lhelp")
    text_file = tmp_path / "libtext.so"
    text_file.write_text("not a library")
    plain = _compile(tmp_path, "plain", _scaling("Plain", "1"))
    handlers, digests = _handlers_with(tmp_path, monkeypatch, needs, text_file)
    claim = _claim(plain, "", "Plain")   # its offset only: the libraries below do not load
    for library, name, why in [
            (needs, "libneeds.so", "which needs libhelp.so, which neither your notebook loaded nor the grading "
                                   "image has; load it in your notebook too, or link it statically"),
            (text_file, "libtext.so", "which was built for another architecture or is not a shared library")]:
        bindings = {"n_lib": {**claim, "library": {**claim["library"], "name": name, "sha256": digests[library]}}}
        refused = program.report(_program("n_lib"), [X], handlers=Handlers(), bindings=bindings).refused
        assert refused.startswith(f"the FFI target n_lib is registered from Plain in {name}, {why}")


def test_a_course_target_claimed_as_the_answers_runs_the_course_kernel():
    report = program.report(_text(_rms_prim(), X), [X], handlers=Handlers(),
                            bindings={"rms_norm": {"symbol": "Triple3", "course": False}})
    assert report.refused == "" and report.calls[0].course
