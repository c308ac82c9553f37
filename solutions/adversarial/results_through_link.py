"""Attack on root's file handling (issue 54): results written through whatever path is in
place, and files read after checking only their size, with no bound on what is read. On top
of a wrong answer worth 0 that loads its own C++ library (so the runner reads the loader's
captures of it), a cell of the student's plants, from the witness (the `student` user),
everything it can reach that root might write through or read: symbolic links, each to a
marker file only root could create, at every name the runner, make validate or a cluster
task writes or reads (results.json, results.pkl, grading.json, task.log, a results folder,
cells.json, .OTTER_LOG, the kernel cache) in its own folder, in /tmp (the grading folder's
siblings, the root processes' JAX_INTEROP_KERNEL_CACHE) and beside its grading folder and
in /autograder (refused: not the student's to write); and in its capture folder, records
and library copies of its own process that are a FIFO (an open that blocks), a link to
/dev/zero (a read that never ends) or a hard link to a root-owned file.
None may be followed or read: the grading ends normally, 0 points, no marker exists.

assignment: silu_ffi
base: wrong_copy_kernel_in_own_primitive
score: 0
messages:
  - computes math in JAX outside your kernels
markers:
  - /pwned-link-results.json
  - /pwned-link-results.pkl
  - /pwned-link-grading.json
  - /pwned-link-task.log
  - /pwned-link-results
  - /pwned-link-cells.json
  - /pwned-link-otter-log
  - /pwned-link-kernel-cache
"""
# %%
import os as _os
from pathlib import Path as _P

_NAMES = {"results.json": "results.json", "results.pkl": "results.pkl", "grading.json": "grading.json",
          "task.log": "task.log", "results": "results", "cells.json": "cells.json", ".OTTER_LOG": "otter-log",
          "kernel-cache": "kernel-cache"}


def _quietly(fn, *args):
    try:
        fn(*args)
    except OSError:          # most of these are refused: what is not must not be followed
        pass


_home = _P.cwd()                      # /tmp/grading-XXXX/student, the witness's folder
_work = _home.parent                  # the runner's grading folder (root's, 0711: not ours to fill)
for _folder in (_home, _P("/tmp"), _work, _work / "executor", _P("/autograder"), _P("/autograder/results")):
    for _name, _marker in _NAMES.items():
        _quietly(_os.symlink, f"/pwned-link-{_marker}", _folder / _name)
_quietly(_os.mkfifo, _home / "results.fifo")

# The loader's captures, which the runner reads as root (runner/libraries.py): records and
# copies of this process, numbered after the real ones, that no read may follow or finish:
# a record that is a FIFO or a link to /dev/zero, and valid records (the real library's name
# and address) whose copy is a FIFO, a link to /dev/zero or a hard link to root's file.
_loaded = _home / ".cache" / "loaded"
_loaded.mkdir(parents=True, exist_ok=True)
_pid = _os.getpid()
_mine = sorted(_loaded.glob(f"{_pid}-*.txt"), key=lambda p: int(p.stem.split("-")[1]))
_record = _mine[-1].read_bytes() if _mine else b"0\n/nonexistent.so"
_n = len(_mine) + 100
for _make in (_os.mkfifo, lambda p: _os.symlink("/dev/zero", p)):
    _quietly(_make, _loaded / f"{_pid}-{_n}.txt")
    _n += 1
for _make in (_os.mkfifo, lambda p: _os.symlink("/dev/zero", p), lambda p: _os.link("/etc/passwd", p)):
    _quietly((_loaded / f"{_pid}-{_n}.txt").write_bytes, _record)
    _quietly(_make, _loaded / f"{_pid}-{_n}.so")
    _n += 1
