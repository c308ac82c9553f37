"""Root never acts on what a student controls (issue 54), piece by piece: the environment of
root's part of a start, the folders root writes in, the files it reads, the replies it
decodes, the at-fork hooks of the witness's own forks. solutions/adversarial/ holds the
whole attacks, graded by make validate."""
import io
import os
import pwd
import stat
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from autograder.shared import safe_files, wire

ROOT = Path(__file__).resolve().parents[1]


def _account(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


AS_ROOT = pytest.mark.skipif(os.geteuid() != 0 or _account("student") is None or _account("executor") is None,
                             reason="needs root and the image's accounts")


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


# ---- replies: counted before any work --------------------------------------------------------

@pytest.mark.parametrize("array", [np.arange(6, dtype=np.float32).reshape(2, 3), np.float64(2.5),
                                   np.zeros((0, 4), np.int8), np.asfortranarray(np.eye(3, dtype=np.complex64)),
                                   np.array([True, False])])
def test_arrays_of_numbers_travel(array):
    got = wire.decode({"$npy": _npy(array)})
    assert got.dtype == np.asarray(array).dtype and got.shape == np.shape(array)
    np.testing.assert_array_equal(got, array)


def _header(descr: str, shape: tuple) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


@pytest.mark.parametrize("blob, why", [
    (_header("|V0", (2 ** 62,)), "only arrays of numbers travel"),           # zero-byte items
    (_header("<f4", (2 ** 62,)) + b"\0" * 16, "in 16 bytes"),               # declared, not present
    (_header("<f4", (3,)) + b"\0" * 16, "in 16 bytes"),                      # more bytes than declared
    (_npy(np.array(["a", "b"])), "only arrays of numbers travel"),
    (_npy(np.zeros(2, dtype=[("a", "<f4")])), "only arrays of numbers travel"),
    (b"\x93NUMPY\x01\x00" + b"\xff\xff" + b"{", "not .npy")])
def test_a_reply_that_is_not_an_array_of_numbers_is_refused_before_any_work(blob, why):
    with pytest.raises(wire.WireError, match=why):
        wire.decode({"$npy": blob})


# ---- files: never followed, bounded ----------------------------------------------------------

def test_root_reads_only_regular_files_within_a_bound(tmp_path):
    (tmp_path / "ok.json").write_text("{}")
    (tmp_path / "link").symlink_to(tmp_path / "ok.json")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 101)
    assert safe_files.read_regular(tmp_path / "ok.json", 100) == (b"{}", "")
    assert safe_files.read_regular(tmp_path / "link", 100) == (None, "it is a symbolic link")
    assert safe_files.read_regular(tmp_path / "fifo", 100)[0] is None       # never blocks on it
    assert safe_files.read_regular(tmp_path / "big", 100)[0] is None
    assert safe_files.read_regular("/dev/zero", 100)[0] is None


def test_results_replace_what_stands_at_their_name_and_never_write_through_it(tmp_path):
    out = tmp_path / "results"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (out / "results.json").symlink_to(victim)
    safe_files.write_atomic(out, "results.json", b'{"score": 0}')
    assert victim.read_text() == "untouched"
    assert not (out / "results.json").is_symlink() and (out / "results.json").read_bytes() == b'{"score": 0}'
    linked = tmp_path / "linked"
    linked.symlink_to(out)
    with pytest.raises(safe_files.UnsafeFolder):
        safe_files.write_atomic(linked, "results.json", b"{}")
    os.chmod(out, 0o777)
    with pytest.raises(safe_files.UnsafeFolder):
        safe_files.write_atomic(out, "results.json", b"{}")


def test_lock_down_leaves_no_file_readable_to_others(tmp_path):
    from autograder.runner.__main__ import lock_down
    tests = tmp_path / "source" / "tests"
    tests.mkdir(parents=True)
    (tests / "q1.py").write_text("def test_hidden(): ...")
    os.chmod(tests / "q1.py", 0o644)
    (tmp_path / "run_autograder").write_text("#!/bin/sh\n")
    os.chmod(tmp_path / "run_autograder", 0o755)
    lock_down(tmp_path)
    for path in [tmp_path, tests.parent, tests, tests / "q1.py", tmp_path / "run_autograder"]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert stat.S_IMODE((tmp_path / "run_autograder").stat().st_mode) == 0o700


# ---- processes: nothing the loader reads is set while root runs -------------------------------

AUDIT_C = r"""
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
unsigned int la_version(unsigned int v) {
  char path[4096];
  snprintf(path, sizeof path, "%s/loaded-by-%d", getenv("MARKS") ? getenv("MARKS") : "/tmp", (int)geteuid());
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
  return v;
}
"""


@AS_ROOT
def test_the_loader_variables_reach_the_process_only_after_privileges_drop():
    """An audit module named in LD_AUDIT marks every process whose loader reads it, by euid:
    given to a LimitedProcess's environment, it reaches the student's processes (prlimit,
    env, python), never root's setpriv."""
    from autograder.runner import sandbox
    from autograder.shared import config as settings
    tmp_path = Path(tempfile.mkdtemp())   # pytest's own folder is root's alone: the student could not load from it
    os.chmod(tmp_path, 0o755)
    (tmp_path / "audit.c").write_text(AUDIT_C)
    module = tmp_path / "audit.so"
    subprocess.run(["clang", "-shared", "-fPIC", "-o", str(module), str(tmp_path / "audit.c")], check=True)
    marks = tmp_path / "marks"
    marks.mkdir(mode=0o777)
    os.chmod(marks, 0o777)
    student = _account("student")
    command = sandbox.limited_command("student", settings.load().limits, ["/bin/true"],
                                      {"LD_AUDIT": str(module), "MARKS": str(marks)})
    try:
        subprocess.run(command, env=sandbox.ROOT_ENV, cwd=tmp_path, check=True)
        assert sorted(p.name for p in marks.iterdir()) == [f"loaded-by-{student.pw_uid}"]
    finally:
        shutil.rmtree(tmp_path)


@AS_ROOT
def test_the_copies_folder_is_roots_and_the_executor_only_reads_it(tmp_path):
    from autograder.runner.libraries import Libraries
    from autograder.shared import config as settings
    os.chmod(tmp_path, 0o711)
    executor = _account("executor")
    target = tmp_path / "libraries"
    Libraries(tmp_path / "student", _account("student").pw_uid, settings.load().limits, target, lambda: None,
              True, reader_gid=executor.pw_gid)
    info = target.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, executor.pw_gid, 0o2750)
    write = subprocess.run(["setpriv", f"--reuid={executor.pw_uid}", f"--regid={executor.pw_gid}",
                            "--clear-groups", "touch", str(target / "planted")], capture_output=True)
    assert write.returncode != 0 and not (target / "planted").exists()


@AS_ROOT
def test_the_executors_home_is_given_once_and_never_chowned_again(tmp_path, monkeypatch):
    """A restart follows no link the executor planted in its home (the chown of its tmp
    folder made the executor owner of /autograder)."""
    from autograder.runner.executor_client import Executor
    from autograder.shared import config as settings
    os.chmod(tmp_path, 0o711)
    executor = Executor(tmp_path / "executor", settings.load().limits)

    def spawn(self, *args, **kwargs):
        self.starts += 1
    monkeypatch.setattr(Executor, "_spawn_module", spawn)
    executor._start()
    assert (tmp_path / "executor" / "tmp").stat().st_uid == _account("executor").pw_uid
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "executor" / "tmp").rmdir()
    (tmp_path / "executor" / "tmp").symlink_to(victim)
    executor._start()   # a restart after a crash
    assert victim.stat().st_uid == 0


def test_only_the_kept_capture_records_are_read(tmp_path, monkeypatch):
    """A capture folder filled with thousands of records: root reads loaded_libraries of them
    (the first by number), each within RECORD_BYTES."""
    from autograder.runner import libraries
    from autograder.shared import config as settings
    limits = settings.load().limits
    captures = tmp_path / "student" / libraries.CAPTURE
    captures.mkdir(parents=True)
    for n in range(3 * limits.loaded_libraries):
        (captures / f"77-{n}.txt").write_bytes(b"1000\n/x/lib.so" + b"y" * (1 << 14) * (n % 2))
    read = []
    real = libraries.read_regular

    def counted(name, max_bytes, **kw):
        read.append((name, max_bytes))
        return real(name, max_bytes, **kw)
    monkeypatch.setattr(libraries, "read_regular", counted)
    os.chmod(tmp_path, 0o700)
    kept = libraries.Libraries(tmp_path / "student", os.geteuid(), limits, tmp_path / "copies", lambda: 77, True)
    fd = safe_files.open_folder(tmp_path / "student", libraries.CAPTURE)
    try:
        found = kept._captures(77, fd)
    finally:
        os.close(fd)
    assert len(read) == limits.loaded_libraries and all(b == libraries.RECORD_BYTES for _, b in read)
    assert [c.number for c in found] == [n for n in range(limits.loaded_libraries) if n % 2 == 0]


# ---- the witness's own forks run none of the notebook's at-fork hooks ---------------------------

ATFORK = """
import os, sys
from autograder.witness import atfork
atfork.snapshot()
os.register_at_fork(after_in_child=lambda: os.write(1, b"notebook's hook "))
with atfork.grader_hooks():
    pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
pid = os.fork()   # an ordinary fork after it: the notebook's hook is back
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_the_worlds_forks_run_no_hook_of_the_notebooks():
    out = subprocess.run([sys.executable, "-c", ATFORK], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout == "notebook's hook "
