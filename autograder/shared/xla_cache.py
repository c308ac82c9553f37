"""Compiled programs shared by a batch of gradings (make validate): XLA executables that a
trusted grading compiled, loaded by later gradings instead of compiled again.

A grading compiles the same programs whatever the answer (the grader's eager operations, its
poisons, the reference-like paths), ~30% of its time (reduce_sum_rules: 10 of 30 s). So
validate first grades each assignment's reference answer with accounts of their own
("warm" accounts, which never run anything else), their processes writing JAX's persistent
compilation cache into folders those accounts own (FILL); every later grading's witness and
executor link those entries into a cache folder of their own (WARM) before any student code
runs, and JAX loads an executable when the program text and compile options are the same
(its cache key). Only time changes: a miss compiles as before; nothing outside the warm-up
writes a warm folder, and a student-run process can only touch its own folder's links.

The runner (root) only puts paths into the environment of the processes it starts; it never
opens what is in these folders. Outside a batch (one grading per container), nothing is set.
"""
from __future__ import annotations

import os
from pathlib import Path

FILL = "JAX_INTEROP_XLA_FILL"   # warm-up: each process writes its executables to FILL/<its user>
WARM = "JAX_INTEROP_XLA_WARM"   # later: link FILL/*/ entries into the process's own folder
OWN = "JAX_COMPILATION_CACHE_DIR"   # JAX's own setting (read when jax is imported)


def environment(user: str, tmp: Path) -> dict[str, str]:
    """The cache settings of a process run as `user` whose TMPDIR is `tmp` (runner side: only
    strings, from the runner's own environment, set by validate)."""
    fill, warm = os.environ.get(FILL), os.environ.get(WARM)
    if fill:   # every executable written
        own, link, written = str(Path(fill) / user), "", "0"
    elif warm:   # read only: writing each new executable costs more than it saves here
        own, link, written = str(tmp / "xla"), warm, "1e9"
    else:
        return {}
    return {OWN: own, WARM: link,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": written,
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def link() -> int:
    """In the witness or the executor, before anything compiles: link every entry of the warm
    folders into this process's own cache folder. Returns how many (0 when there is nothing
    to link, or a folder cannot be read: the cache only saves time)."""
    warm, own = os.environ.get(WARM), os.environ.get(OWN)
    if not warm or not own:
        return 0
    linked = 0
    try:
        os.makedirs(own, mode=0o700, exist_ok=True)
        for account in os.scandir(warm):
            if not account.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(account.path):
                if entry.name.endswith("-cache") and not os.path.lexists(target := os.path.join(own, entry.name)):
                    os.symlink(entry.path, target)
                    linked += 1
    except OSError:
        pass
    return linked
