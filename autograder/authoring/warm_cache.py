"""The warm-up of a batch of gradings (make validate; autograder/shared/xla_cache.py says why):
accounts that grade only the assignments' reference answers, each writing its executables
to a folder it owns, and the runner environments of the warm-up and of what follows."""
from __future__ import annotations

import contextlib
import os
import pwd
import queue
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.shared import xla_cache


@dataclass(frozen=True)
class Warm:
    accounts: queue.Queue   # (witness, executor) pairs for the reference gradings only
    folder: Path

    def fill(self, assignment: str) -> dict:
        """The runner's environment while `assignment`'s reference is graded."""
        return {xla_cache.FILL: str(self.folder / assignment)}

    def use(self, assignment: str) -> dict:
        """The runner's environment for the gradings of `assignment` after it: its own
        reference's executables only (linking every assignment's cost the others more
        than they saved: measured in docs/measuring.md)."""
        return {xla_cache.WARM: str(self.folder / assignment)}


@contextlib.contextmanager
def warm(jobs: int, account: Callable[[str], str], assignments: list[str]) -> Iterator[Warm]:
    """`jobs` pairs of warm accounts (`account(name)` makes one), each account a folder of its
    own per assignment (0755: every later grading reads it; only its account writes it) in a
    new folder of root's; removed after."""
    folder = Path(tempfile.mkdtemp(prefix="xla-warm-"))
    try:
        os.chmod(folder, 0o755)
        accounts: queue.Queue = queue.Queue()
        for i in range(jobs):
            accounts.put((account(f"warm{i}"), account(f"warm{i}x")))
        for assignment in assignments:
            (folder / assignment).mkdir(mode=0o755)
            for pair in list(accounts.queue):
                for name in pair:
                    (folder / assignment / name).mkdir(mode=0o755)   # new, in a folder no other user can write
                    entry = pwd.getpwnam(name)
                    os.chown(folder / assignment / name, entry.pw_uid, entry.pw_gid)
        yield Warm(accounts, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
