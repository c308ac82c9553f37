"""The warm executables of a batch of gradings (autograder/shared/xla_cache.py,
autograder/authoring/warm_cache.py): who may write the folders, what a process links, and
that a cached executable is the same program's (a poisoned or changed program compiles anew)."""
import os
import pwd
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder.authoring import warm_cache
from autograder.shared import xla_cache


def test_no_batch_sets_nothing(monkeypatch, tmp_path):
    monkeypatch.delenv(xla_cache.FILL, raising=False)
    monkeypatch.delenv(xla_cache.WARM, raising=False)
    assert xla_cache.environment("student", tmp_path) == {}


def test_fill_writes_to_the_accounts_own_folder_and_warm_reads_from_all(monkeypatch, tmp_path):
    monkeypatch.setenv(xla_cache.FILL, "/w")
    assert xla_cache.environment("warm0", tmp_path)[xla_cache.OWN] == "/w/warm0"
    monkeypatch.delenv(xla_cache.FILL)
    monkeypatch.setenv(xla_cache.WARM, "/w")
    env = xla_cache.environment("grader0", tmp_path)
    assert env[xla_cache.OWN] == str(tmp_path / "xla") and env[xla_cache.WARM] == "/w"


def test_link_takes_cache_entries_only_and_keeps_the_processs_own(monkeypatch, tmp_path):
    warm, own = tmp_path / "warm", tmp_path / "own"
    (warm / "warm0").mkdir(parents=True)
    (warm / "warm0" / "abc-cache").write_bytes(b"executable")
    (warm / "warm0" / "abc-atime").write_bytes(b"t")
    (warm / "stray-cache").write_bytes(b"not in an account's folder")
    own.mkdir()
    (own / "def-cache").write_bytes(b"mine")
    (warm / "warm0" / "def-cache").write_bytes(b"theirs")
    monkeypatch.setenv(xla_cache.WARM, str(warm))
    monkeypatch.setenv(xla_cache.OWN, str(own))
    assert xla_cache.link() == 1
    assert sorted(p.name for p in own.iterdir()) == ["abc-cache", "def-cache"]
    assert (own / "abc-cache").read_bytes() == b"executable" and (own / "def-cache").read_bytes() == b"mine"


def test_link_of_a_missing_folder_links_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv(xla_cache.WARM, str(tmp_path / "gone"))
    monkeypatch.setenv(xla_cache.OWN, str(tmp_path / "own"))
    assert xla_cache.link() == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="makes accounts and chowns: root in the image")
def test_warm_folders_are_written_by_their_account_alone_and_removed_after():
    with warm_cache.warm(1, lambda name: "student" if name.endswith("0") else "executor", ["a", "b"]) as warm:
        folder = warm.folder
        assert warm.fill("a") == {xla_cache.FILL: str(folder / "a")}
        assert warm.use("b") == {xla_cache.WARM: str(folder / "b")}
        for path, owner in [(folder, "root"), (folder / "a", "root"), (folder / "b" / "student", "student"),
                            (folder / "a" / "executor", "executor")]:
            info = path.stat()
            assert info.st_uid == pwd.getpwnam(owner).pw_uid and stat.S_IMODE(info.st_mode) == 0o755
        assert warm.accounts.get() == ("student", "executor")
    assert not folder.exists()


PROGRAMS = textwrap.dedent("""
    import sys, jax, jax.numpy as jnp
    from autograder.shared import xla_cache
    print(xla_cache.link())
    f = jax.jit(lambda x: x * float(sys.argv[1]) + 1.0)
    print(float(f(jnp.arange(4.0)).sum()))
""")


def _run(env: dict, scale: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROGRAMS, scale], capture_output=True, text=True,
                         env={**os.environ, **env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
                         check=True).stdout
    return out.split()


def test_a_warm_executable_computes_what_a_fresh_compile_does_and_only_for_its_program(tmp_path):
    fill = {xla_cache.OWN: str(tmp_path / "warm" / "warm0"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}
    assert _run(fill, "2.0") == ["0", "16.0"]
    entries = list((tmp_path / "warm" / "warm0").glob("*-cache"))
    assert entries
    use = {**fill, xla_cache.OWN: str(tmp_path / "own"), xla_cache.WARM: str(tmp_path / "warm")}
    linked, value = _run(use, "2.0")
    assert int(linked) == len(entries) and value == "16.0"
    # another constant is another program: compiled, not the warm one
    assert _run({**use, xla_cache.OWN: str(tmp_path / "own2")}, "3.0")[1] == "22.0"
