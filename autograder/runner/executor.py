"""The grader's handle on the executor (autograder.executor): started on the first program
a test hands it, as the `executor` user with the witness's limits, in its own folder, with
the answer's kernel source (read here, by root, from the student's folder: see
read_answer_source); restarted after a crash; every process of that user is killed on close()."""
from __future__ import annotations

import os
import pwd
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.shared import wire
from autograder.shared.probe import Unanswered
from autograder.runner.sandbox import LimitedProcess, death

USER = "executor"
MAX_SOURCE_BYTES = 1 << 20


@dataclass
class Executor(LimitedProcess):
    user: str = USER
    # The answer's kernel source, read on the first start (after the notebook ran) and kept
    # for restarts: () -> (name, text or None, why no text).
    read_source: Callable[[], tuple[str, str | None, str]] | None = None
    _source: tuple[str, str | None, str] | None = None

    def run(self, request: dict) -> dict:
        """program.handle's data for `request` ({"op": "run" | "call", ...}, arrays as arrays);
        raises Unanswered when the process crashes (a kernel's segfault) or runs out of time."""
        if self.proc is None:
            self._start()
        deadline = time.monotonic() + min(self.limits.question_s, self._left())
        message = {k: [wire.encode(a) for a in v] if k in ("args", "operands") else v for k, v in request.items()}
        try:
            self._write(wire.frame(message), deadline)
            reply = self._receive(deadline)
            return wire.decode(reply["ok"])
        except TimeoutError:
            self._stop()
            raise Unanswered(f"The grader's run of your program did not finish computing {{what}} within "
                             f"{self.limits.question_s:.0f} s") from None
        except (EOFError, BrokenPipeError):
            raise Unanswered(f"The grader's run of your program {death(self._stop())} while computing "
                             "{what}") from None

    def _start(self) -> None:
        if not available(self.user):
            raise Unanswered(f"{{what}} was not computed: this grading environment has no account "
                             f"{self.user!r} to run programs with (its setup.sh or image is out of date)")
        self._prepare_home()
        self._spawn_module("autograder.executor")
        if self.read_source is not None:
            self._source = self._source or self.read_source()
            name, text, problem = self._source
            self._write(wire.frame({"op": "source", "name": name, "text": text, "problem": problem}),
                        time.monotonic() + self.limits.question_s)

    def _prepare_home(self) -> None:
        account = pwd.getpwnam(self.user)
        (self.work / "tmp").mkdir(parents=True, exist_ok=True)
        for path in (self.work, self.work / "tmp"):
            os.chown(path, account.pw_uid, account.pw_gid)
        os.chmod(self.work, 0o700)


def read_answer_source(folder: Path, name: str, user: str) -> tuple[str | None, str]:
    """The text of the file `name` the notebook wrote in its folder, or None and why not.
    Read as root from a folder the student controls, so: no symbolic link followed, a
    regular file owned by the student (a hard link to someone else's file is not), at most
    MAX_SOURCE_BYTES, UTF-8."""
    try:
        fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, f"the notebook wrote no {name} in its folder"
    except OSError as exc:
        return None, f"{name} in the notebook's folder could not be opened ({exc.strerror})"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != pwd.getpwnam(user).pw_uid:
            return None, f"{name} in the notebook's folder is not a file the notebook wrote"
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        return None, f"{name} is larger than {MAX_SOURCE_BYTES >> 20} MB"
    try:
        return data.decode(), ""
    except UnicodeDecodeError:
        return None, f"{name} is not UTF-8 text"


def available(user: str = USER) -> bool:
    """Whether this machine has the executor's account (the image and setup.sh create it)."""
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False
