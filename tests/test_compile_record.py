"""The C++ a notebook compiled, as it compiled it: the compiler wrapper records each run
(autograder/witness/compile_record.py), and the grader builds the library a registration
names from those records (autograder/executor/recorded.py) with the flags it honours
(autograder/shared/compile_line.py).

The end-to-end tests call the image's compiler by its ordinary names, as a notebook does;
the library is plain C, so each compile takes a few hundredths of a second."""
import ctypes
import json
import glob
import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from autograder.executor.recorded import Recorded
from autograder.shared import compile_line

WRAPPED = Path("/usr/local/lib/compiler-wrapper").is_file()
needs_image = pytest.mark.skipif(not WRAPPED, reason="the grading image's compiler wrapper")

# One C function whose value says how the file was built.
SOURCE = r"""
int which(void) {
#if defined(CHOICE)
  return CHOICE;
#elif defined(__OPTIMIZE__)
  return 2;
#else
  return 1;
#endif
}
"""


# ------------------------------------------------------------------ reading command lines ---

def test_a_one_step_build_is_one_output_from_its_sources():
    line = compile_line.parse(["-std=c++17", "-O2", "-shared", "-fPIC", "-I", "/inc", "-Iinclude", "-DX=1",
                               "-o", "lib.so", "a.cc", "b.cpp", "-lm"], cxx_driver=True)
    assert [s.path for s in line.sources] == ["a.cc", "b.cpp"]
    assert line.inputs == ["-lm"] and line.shared
    assert line.outputs() == [("lib.so", line.sources)]
    assert line.preprocess == ["-std=c++17", "-O2", "-fPIC", "-I/inc", "-Iinclude", "-DX=1"]


def test_compile_only_names_one_object_per_source():
    line = compile_line.parse(["-c", "src/a.cc", "b.c"], cxx_driver=False)
    assert [(s.path, s.language) for s in line.sources] == [("src/a.cc", "c++"), ("b.c", "c")]
    assert [path for path, _ in line.outputs()] == ["a.o", "b.o"]
    # clang++ compiles .c as C++; -x decides for the inputs after it
    assert compile_line.parse(["-c", "b.c"], cxx_driver=True).sources[0].language == "c++"
    assert compile_line.parse(["-x", "c++", "-", "-o", "x.so"], cxx_driver=False).sources[0].path == "-"


def test_runs_that_make_no_code_are_not_recorded():
    for argv in (["--version"], ["-E", "a.cc"], ["-fsyntax-only", "a.cc"], ["-MM", "a.cc"], []):
        assert compile_line.parse(argv, cxx_driver=True).outputs() == []


def test_the_grader_honours_code_flags_drops_the_rest_and_refuses_the_unknown():
    flags = compile_line.parse(["-std=c++20", "-O3", "-ffast-math", "-march=native", "-Wall", "-g", "-Iinc",
                                "-DX", "-MD", "-MF", "a.d", "-fPIC", "-pthread", "-Wl,-soname,lib.so", "a.cc"],
                               cxx_driver=True).flags
    compile_flags, link_flags, refused = compile_line.judged(flags)
    assert compile_flags == ["-std=c++20", "-O3", "-ffast-math", "-march=native", "-pthread"]
    assert link_flags == ["-pthread"] and refused == ""
    for odd in (["-fsanitize=address"], ["-mllvm", "-x"], ["-Xclang", "-load"], ["-Wl,--wrap=exp"],
                ["-fplugin=x.so"]):
        assert compile_line.judged(compile_line.parse([*odd, "a.cc"], cxx_driver=True).flags)[2] == " ".join(odd)


# ------------------------------------------------------------- recorded, then rebuilt ---

def _compile(tmp: Path, *argv: str, log: Path | None = None, compiler: str = "clang", **kwargs):
    env = {**os.environ}
    env.pop(compile_line.LOG_ENV, None)
    if log is not None:
        env[compile_line.LOG_ENV] = str(log)
    return subprocess.run([compiler, *argv], cwd=tmp, env=env, capture_output=True, **kwargs)


def _grader_build(log: Path, library: Path):
    """The grader's build of `library` from the records in `log`: (the Built, the value of
    which() in it, or None)."""
    recorded = Recorded([p.read_text() for p in sorted(log.glob("*.json"))])
    made = recorded.find({"sha256": hashlib.sha256(library.read_bytes()).hexdigest(), "path": str(library)})
    if made is None:
        return None, None
    built = recorded.build(made)
    return built, (built.library.which() if built.library is not None else None)


@pytest.fixture
def build(tmp_path, monkeypatch):
    """A folder holding SOURCE as which.c, a record folder, and a private grader cache."""
    monkeypatch.setenv("JAX_INTEROP_KERNEL_CACHE", str(tmp_path / "grader-cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "which.c").write_text(SOURCE)
    return tmp_path / "src", tmp_path / "log"


@needs_image
@pytest.mark.parametrize("flags, value", [(["-O2"], 2), (["-O0"], 1), (["-O2", "-DCHOICE=7"], 7)])
def test_the_grader_builds_the_library_as_the_notebook_compiled_it(build, flags, value):
    src, log = build
    assert _compile(src, *flags, "-shared", "-fPIC", "-o", "libwhich.so", "which.c", log=log).returncode == 0
    assert ctypes.CDLL(str(src / "libwhich.so")).which() == value
    built, got = _grader_build(log, src / "libwhich.so")
    assert built.error == "" and got == value


@needs_image
def test_objects_then_a_link_are_built_as_the_build_tool_did(build):
    src, log = build
    (src / "main_part.c").write_text("int which(void); int twice(void) { return 2 * which(); }")
    assert _compile(src, "-O2", "-fPIC", "-DCHOICE=5", "-c", "which.c", "-o", "which.o", log=log).returncode == 0
    assert _compile(src, "-O2", "-fPIC", "-c", "main_part.c", log=log).returncode == 0
    assert _compile(src, "-shared", "-o", "libboth.so", "which.o", "main_part.o", "-lm", log=log,
                    compiler="c++").returncode == 0
    built, got = _grader_build(log, src / "libboth.so")
    assert got == 5 and built.library.twice() == 10


@needs_image
def test_a_source_read_from_standard_input_is_recorded(build):
    src, log = build
    result = _compile(src, "-x", "c", "-DCHOICE=3", "-shared", "-fPIC", "-o", "libstdin.so", "-", log=log,
                      input=SOURCE.encode())
    assert result.returncode == 0
    assert _grader_build(log, src / "libstdin.so")[1] == 3


@needs_image
def test_a_flag_the_grader_cannot_honour_is_refused_with_a_sentence(build):
    src, log = build
    assert _compile(src, "-fno-zero-initialized-in-bss", "-shared", "-fPIC", "-o", "libodd.so", "which.c",
                    log=log).returncode == 0
    built, got = _grader_build(log, src / "libodd.so")
    assert got is None and built.error == ("your notebook built libodd.so with the compiler flag "
                                           "-fno-zero-initialized-in-bss, which the grader cannot honour when it "
                                           "builds your C++ again")


@needs_image
def test_an_object_no_recorded_run_made_is_not_linked(build):
    src, log = build
    real = sorted(glob.glob("/usr/lib/llvm-*/bin/clang"))[-1]   # past the wrapper: not recorded
    assert _compile(src, "-fPIC", "-c", "which.c", compiler=real).returncode == 0
    assert _compile(src, "-shared", "-o", "libodd.so", "which.o", log=log).returncode == 0
    built, got = _grader_build(log, src / "libodd.so")
    assert got is None and built.error == ("your notebook linked which.o into libodd.so, and the grader builds "
                                           "only objects your notebook's own compiler runs made from C or C++ "
                                           "sources")


@needs_image
def test_the_wrapper_changes_nothing_the_compile_does(build, tmp_path):
    src, log = build
    (src / "broken.c").write_text("int f(void) { return }")
    failed = _compile(src, "-c", "broken.c", log=log)
    assert failed.returncode != 0 and b"expected expression" in failed.stderr
    assert not list(log.glob("*.json"))                 # a failed compile made nothing to record
    assert not list(log.glob("*.ii"))                   # nor left its preprocessed unit
    assert _compile(src, "-c", "which.c").returncode == 0 and not (tmp_path / "unset").exists()
    unwritable = Path("/proc/no-such-folder")           # recording cannot happen: the compile still does
    assert _compile(src, "-shared", "-fPIC", "-o", "libx.so", "which.c", log=unwritable).returncode == 0
    assert (src / "libx.so").is_file()


@pytest.mark.skipif(os.geteuid() != 0 or not WRAPPED, reason="the grading image's root and student account")
def test_the_runner_reads_only_records_the_student_wrote_in_the_record_folder(tmp_path):
    import pwd

    from autograder.runner.executor_client import read_answer_cpp
    from autograder.runner.sandbox import compile_log
    student = pwd.getpwnam("student")
    home = tmp_path / "student"
    log = compile_log(home)
    log.mkdir(parents=True)
    (log / "1-1.json").write_text('{"outputs": []}')
    (log / "2-2.json").write_text('{"theirs": true}')      # root's, not the student's
    (log / "3-3.json").symlink_to(tmp_path / "elsewhere.json")
    (log / "4-4.ii").write_text("not a record")
    for path in [home, *home.rglob("*")]:
        if path.name != "2-2.json":
            os.chown(path, student.pw_uid, student.pw_gid, follow_symlinks=False)
    found = read_answer_cpp(home, "student")
    assert found["compiles"] == ['{"outputs": []}']
    assert sorted(found["skipped"]) == ["a record of a compiler run was not read: it is a symbolic link",
                                        "a record of a compiler run was not read: it is not a file the notebook wrote"]
    # a record folder that is a link to somewhere else is not followed
    other = tmp_path / "other"
    (other / ".cache").mkdir(parents=True)
    (other / ".cache" / "compiles").symlink_to(log, target_is_directory=True)
    assert read_answer_cpp(other, "student")["compiles"] == []


def test_records_that_are_not_the_wrappers_build_nothing_and_raise_nothing():
    deep = "[" * 100000 + "]" * 100000
    recorded = Recorded(["not json", deep, '{"outputs": {"a": 1}}', '{"outputs": [{"sha256": "ab", "path": "/x.so", '
                         '"units": [5]}], "units": [], "flags": [], "inputs": []}'])
    made = recorded.find({"sha256": "ab", "path": "/x.so"})
    built = recorded.build(made)
    assert built.library is None and built.error.startswith("the record of the compiler run that made x.so could not be read")
    assert recorded.find({"sha256": "cd"}) is None and recorded.find(None) is None


@needs_image
def test_a_static_library_of_recorded_objects_is_built_from_its_objects(build):
    src, log = build
    assert _compile(src, "-O2", "-fPIC", "-DCHOICE=9", "-c", "which.c", log=log).returncode == 0
    assert subprocess.run(["ar", "rcs", "libwhich.a", "which.o"], cwd=src).returncode == 0
    assert _compile(src, "-shared", "-o", "libfromar.so", "-Wl,--whole-archive", "libwhich.a",
                    "-Wl,--no-whole-archive", log=log).returncode == 0
    built, got = _grader_build(log, src / "libfromar.so")
    assert built.error == "" and got == 9


@needs_image
def test_a_unit_on_the_notebooks_given_headers_compiles_through_the_images_pch_to_the_same_object(tmp_path,
                                                                                                 monkeypatch):
    """The silu_ffi notebook's given head (solutions/silu_ffi/reference.py's first string) is
    the image's precompiled prefix, and compiling a unit as that PCH plus the rest makes the
    object that compiling it whole makes."""
    from autograder.executor import cpp, prefix
    from autograder.shared import paths
    from kernels.build import compiler, compiler_version, load
    given = (paths.solutions("silu_ffi") / "reference.py").read_text().split('r"""')[1].split('"""')[0]
    assert given == prefix.TEMPLATE
    monkeypatch.setenv("JAX_INTEROP_KERNEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(compile_line.LOG_ENV, str(tmp_path / "log"))
    (tmp_path / "kernel.cc").write_text(given + 'extern "C" float Twice(float v) { return 2.0f * std::exp(v); }\n')
    load(tmp_path / "kernel.cc")
    record = json.loads(next((tmp_path / "log").glob("*.json")).read_text())
    unit, flags = record["units"][0], compile_line.judged(record["flags"])[0]
    text, argv = cpp.unit_text(unit), cpp.unit_argv("c++", flags)
    head, rest = prefix.split(text)
    pch = prefix.prebuilt(head, argv, compiler_version(compiler()))
    assert pch is not None and rest.startswith(b'# ') and b"Twice" in rest and b"Twice" not in head
    objects = []
    for name, extra, body in (("whole", [], text), ("pch", ["-Xclang", "-include-pch", "-Xclang", str(pch)], rest)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "unit.ii").write_bytes(body)
        subprocess.run([compiler(), *argv, *extra, "-o", "unit.o", "unit.ii"], cwd=tmp_path / name, check=True)
        objects.append((tmp_path / name / "unit.o").read_bytes())
    assert objects[0] == objects[1]
