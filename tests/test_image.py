"""The grading image itself: versions from the lock file, compilers, FFI headers, user."""
import importlib.metadata
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import pytest

LOCK = Path(__file__).parents[1] / "docker" / "requirements.lock"


def test_python_and_jax_versions():
    assert sys.version_info >= (3, 12)
    assert jax.__version__ == "0.12.0.1"
    assert sys.prefix == os.environ.get("VIRTUAL_ENV", "/opt/venv")


def test_every_locked_package_is_installed_at_its_locked_version():
    """Does the image hold exactly the versions of docker/requirements.lock?"""
    pins = [l.split("==") for l in LOCK.read_text().splitlines() if "==" in l and not l.startswith("#")]
    assert len(pins) > 50
    wrong = {n: (v, importlib.metadata.version(n)) for n, v in pins if importlib.metadata.version(n) != v}
    assert not wrong


def test_compilers_and_ffi_headers():
    """clang++, and g++ under that name for the chapter's compile line (`g++ -shared -fPIC`)."""
    assert shutil.which("clang++") and shutil.which("g++")
    assert "clang" in subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    assert (Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "ffi.h").is_file()


def test_grading_tools_otter_expects():
    for tool in ("curl", "wget", "unzip", "dos2unix", "jq", "otter", "jupyter"):
        assert shutil.which(tool), tool


def test_unprivileged_student_user():
    student = pwd.getpwnam("student")
    assert student.pw_uid != 0 and Path(student.pw_dir).is_dir()


def test_ca_bundle_secret_left_no_trace():
    """Is the build secret absent from the image and from pip's configuration?"""
    assert not Path("/run/secrets/pip_ca").exists()
    assert "PIP_CERT" not in os.environ
    for conf in ("/etc/pip.conf", Path.home() / ".config/pip/pip.conf", Path(sys.prefix) / "pip.conf"):
        assert not Path(conf).exists() or "cert" not in Path(conf).read_text()


def test_prebuilt_kernels_are_read_only_for_students():
    prebuilt = Path(os.environ["JAX_INTEROP_PREBUILT_KERNELS"])
    libs = list(prebuilt.glob("lib*.so"))
    assert {re.sub(r"-[0-9a-f]+\.so$", "", p.name) for p in libs} >= {"librms_norm", "libcustom_op"}
    assert all(not (p.stat().st_mode & 0o022) for p in [prebuilt, *libs])
