"""The kernel build helper: compile, cache, report compiler errors, register FFI targets."""
import os
import re
import shutil
import uuid
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kernels import build as kb

KERNELS = Path(__file__).resolve().parent.parent / "kernels"

# Two tiny float32 FFI handlers: y = x + 1 and y = 2 x.
ELEMENTWISE_FFI = r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error AddOneImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] + 1.0f;
  return ffi::Error::Success();
}
static ffi::Error TimesTwoImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = 2.0f * x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AddOne, AddOneImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(TimesTwo, TimesTwoImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A private writable cache and no prebuilt cache, so a real compile happens."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("JAX_INTEROP_KERNEL_CACHE", str(cache))
    monkeypatch.delenv("JAX_INTEROP_PREBUILT_KERNELS", raising=False)
    return cache


@pytest.fixture(scope="module")
def ffi_lib(tmp_path_factory):
    """The two-handler FFI library, compiled once for this module in its own cache."""
    tmp = tmp_path_factory.mktemp("ffi")
    source = tmp / "elementwise.cc"
    source.write_text(ELEMENTWISE_FFI)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JAX_INTEROP_KERNEL_CACHE", str(tmp / "cache"))
        mp.delenv("JAX_INTEROP_PREBUILT_KERNELS", raising=False)
        return kb.load(source)


def unique_target(stem: str) -> str:
    return f"{stem}_{uuid.uuid4().hex[:12]}"  # XLA registrations are process-global


def call_target(target: str, x):
    return jax.jit(lambda a: jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(a.shape, a.dtype))(a))(x)


def write_broken(tmp_path: Path, name: str, text: str) -> Path:
    source = tmp_path / name
    source.write_text(text)
    return source


# ------------------------------------------------------------------ caching ----------

@pytest.mark.slow
def test_second_build_is_served_from_cache(fresh_cache, tmp_path, monkeypatch):
    """Is a second build served from the cache, same path, without running a compiler?"""
    source = tmp_path / "fresh_op.cpp"
    source.write_text(f"// {uuid.uuid4()}\n" + (KERNELS / "custom_op.cpp").read_text())
    path, cached = kb.build(source)
    assert cached is False
    assert path.parent == fresh_cache and path.is_file()
    assert path.name.startswith("libfresh_op-") and path.suffix == ".so"
    assert list(fresh_cache.glob("*.so")) == [path]  # the temporary file was renamed away

    def no_compiler(*args, **kwargs):
        raise AssertionError(f"a compiler ran on the second build: {args[0]}")
    monkeypatch.setattr(kb.subprocess, "run", no_compiler)
    mtime = path.stat().st_mtime_ns
    path2, cached2 = kb.build(source)
    assert (path2, cached2) == (path, True)
    assert path.stat().st_mtime_ns == mtime


def test_cache_key_tracks_source_flags_and_compiler(monkeypatch):
    """Does the cache key change with the source, the flags, the compiler and its version?"""
    cxx = kb.compiler()
    text = (KERNELS / "custom_op.cpp").read_text()
    key = kb.cache_key(text, kb.FLAGS, cxx)
    assert re.fullmatch(r"[0-9a-f]{24}", key)
    assert kb.cache_key(text, kb.FLAGS, cxx) == key  # deterministic
    assert kb.cache_key(text + "\n// edited\n", kb.FLAGS, cxx) != key
    assert kb.cache_key(text, kb.FLAGS + ("-DEXTRA=1",), cxx) != key
    assert kb.cache_key(text, kb.FLAGS[:-1], cxx) != key
    other = {"clang++": "g++", "g++": "clang++"}[Path(cxx).name]
    if other_path := shutil.which(other):
        assert kb.cache_key(text, kb.FLAGS, other_path) != key
    monkeypatch.setattr(kb, "compiler_version", lambda c: "imaginary compiler 99.0")
    assert kb.cache_key(text, kb.FLAGS, cxx) != key


def test_rms_norm_library_comes_from_prebuilt_cache():
    """Is the chapter's rms_norm library loaded from the image's prebuilt cache?"""
    prebuilt = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS")
    if not prebuilt:
        pytest.skip("JAX_INTEROP_PREBUILT_KERNELS is unset: not running in the grading image")
    from kernels import rms_norm
    assert rms_norm.library.cached is True
    assert rms_norm.library.path.parent == Path(prebuilt)
    assert rms_norm.library.path.name.startswith("librms_norm-")


# ------------------------------------------------------------- diagnostics ----------

@pytest.mark.slow
def test_syntax_error_is_reported_with_file_and_line(fresh_cache, tmp_path):
    """Does a syntax error name the file and quote the compiler's error line?"""
    source = write_broken(tmp_path, "broken.cc",
                          "// line 1\nint ok() { return 1; }\nint broken( { return 2; }\n")
    with pytest.raises(kb.KernelBuildError) as info:
        kb.build(source)
    message = str(info.value)
    assert message.startswith("broken.cc did not compile with ")
    assert re.search(r"broken\.cc:3:\d+: error:", message), message
    assert list(fresh_cache.glob("*")) == []  # no half-built library left behind


@pytest.mark.slow
def test_wrong_ffi_handler_signature_fails_readably(fresh_cache, tmp_path):
    """Does an FFI handler bound to a type that does not exist fail with a readable error?"""
    text = ELEMENTWISE_FFI.replace(".Ret<ffi::Buffer<ffi::F32>>()",
                                   ".Ret<ffi::Buffer<ffi::NoSuchType>>()", 1)
    assert "NoSuchType" in text
    source = write_broken(tmp_path, "bad_signature.cc", text)
    with pytest.raises(kb.KernelBuildError) as info:
        kb.build(source)
    message = str(info.value)
    assert "bad_signature.cc did not compile" in message
    assert "error:" in message and "NoSuchType" in message
    assert len(message.splitlines()) <= kb.MAX_DIAGNOSTIC_LINES + 2


@pytest.mark.slow
def test_long_diagnostics_are_capped(fresh_cache, tmp_path):
    """Are the compiler's diagnostics capped at MAX_DIAGNOSTIC_LINES with a count of the rest?"""
    text = "".join(f"int f{i}() {{ return undefined_{i}; }}\n" for i in range(60))
    source = write_broken(tmp_path, "many_errors.cc", text)
    with pytest.raises(kb.KernelBuildError) as info:
        kb.build(source)
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + kb.MAX_DIAGNOSTIC_LINES + 1  # header, diagnostics, "... more"
    assert re.fullmatch(r"\.\.\. \(\d+ more lines\)", lines[-1])
    kept = "\n".join(lines[1:-1])
    assert "undefined_0" in kept and "undefined_59" not in kept  # the first errors are kept


# ----------------------------------------------------------------- compiler ----------

def test_compiler_falls_back_to_gxx(monkeypatch):
    """Without clang++ on PATH, is g++ chosen; and with neither, is KernelBuildError raised?
    (The image ships clang++ only; a student's own Python may have only g++.)"""
    monkeypatch.setattr(kb.shutil, "which", lambda n: "/opt/bin/g++" if n == "g++" else None)
    assert kb.compiler() == "/opt/bin/g++"
    monkeypatch.setattr(kb.shutil, "which", lambda n: None)
    with pytest.raises(kb.KernelBuildError, match="No C\\+\\+ compiler"):
        kb.compiler()


# ------------------------------------------------------------- registration ----------

@pytest.mark.slow
def test_registering_same_symbol_twice_is_a_no_op(ffi_lib, monkeypatch):
    """Is registering the same symbol under the same target a second time a no-op?"""
    target = unique_target("add_one")
    kb.register(ffi_lib, {target: "AddOne"})
    calls = []
    monkeypatch.setattr(jax.ffi, "register_ffi_target", lambda *a, **k: calls.append(a))
    kb.register(ffi_lib, {target: "AddOne"})
    assert calls == []  # XLA was not asked a second time
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(call_target(target, x), x + 1)


@pytest.mark.slow
def test_rebinding_a_target_to_another_symbol_raises(ffi_lib):
    """Does binding a registered target name to another symbol raise ValueError naming it?"""
    target = unique_target("add_one")
    kb.register(ffi_lib, {target: "AddOne"})
    with pytest.raises(ValueError, match=re.escape(repr(target))) as info:
        kb.register(ffi_lib, {target: "TimesTwo"})
    assert "AddOne" in str(info.value)
    x = np.arange(1, 5, dtype=np.float32)
    np.testing.assert_array_equal(call_target(target, x), x + 1)  # first handler kept
    other = unique_target("times_two")
    kb.register(ffi_lib, {other: "TimesTwo"})  # a new name for it is fine
    np.testing.assert_array_equal(call_target(other, x), 2 * x)


@pytest.mark.slow
def test_load_and_register_runs_under_jit(fresh_cache, tmp_path):
    """Does load_and_register make a freshly compiled FFI kernel callable under jit?"""
    source = tmp_path / "add_one.cc"
    source.write_text(f"// {uuid.uuid4()}\n" + ELEMENTWISE_FFI)
    target = unique_target("add_one")
    lib = kb.load_and_register(source, {target: "AddOne"})
    assert lib.cached is False and lib.path.parent == fresh_cache
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    y = call_target(target, jnp.asarray(x))
    assert y.shape == x.shape and y.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(y), x.astype(np.float64) + 1.0, rtol=1e-6, atol=1e-6)


def test_the_precompiled_header_is_used_and_a_bad_one_never_changes_the_outcome(tmp_path, monkeypatch):
    """kernels.build compiles with the prebuilt ffi.h header when there is one for its flags,
    and retries without it when the compile fails with it (a stale or corrupt header)."""
    import subprocess

    if "clang" not in Path(kb.compiler()).name:
        pytest.skip("precompiled headers are clang's")
    prebuilt = tmp_path / "prebuilt"
    prebuilt.mkdir()
    header = kb.precompile_header(prebuilt)
    monkeypatch.setenv("JAX_INTEROP_PREBUILT_KERNELS", str(prebuilt))
    calls = []
    real_run = subprocess.run
    monkeypatch.setattr(kb.subprocess, "run",
                        lambda cmd, **kw: ("-o" in cmd and calls.append(cmd)) or real_run(cmd, **kw))
    source = tmp_path / "k.cc"
    source.write_text(ELEMENTWISE_FFI + "// the precompiled-header test\n")
    monkeypatch.setenv("JAX_INTEROP_KERNEL_CACHE", str(tmp_path / "cache-a"))
    kb.build(source)
    assert [c for c in calls if "-include-pch" in c and str(header) in c] and len(calls) == 1
    header.write_bytes(b"not a precompiled header")
    calls.clear()
    monkeypatch.setenv("JAX_INTEROP_KERNEL_CACHE", str(tmp_path / "cache-b"))
    path, cached = kb.build(source)
    assert not cached and path.is_file() and len(calls) == 2 and "-include-pch" not in calls[1]
