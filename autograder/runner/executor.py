"""The grader's handle on the executor (autograder.executor): started on the first program
a test hands it, as the `executor` user with the witness's limits, in its own folder;
restarted after a crash; every process of that user is killed on close()."""
from __future__ import annotations

import os
import pwd
import time
from dataclasses import dataclass

from autograder.shared import wire
from autograder.shared.probe import Unanswered
from autograder.runner.sandbox import LimitedProcess, death

USER = "executor"


@dataclass
class Executor(LimitedProcess):
    user: str = USER

    def run(self, text: str, args: list, each: bool = False) -> dict:
        """program.report's data for `text` on `args`; raises Unanswered when the process
        crashes (a kernel's segfault) or runs out of time."""
        if self.proc is None:
            if not available(self.user):
                raise Unanswered(f"{{what}} was not computed: this grading environment has no account "
                                 f"{self.user!r} to run programs with (its setup.sh or image is out of date)")
            self._prepare_home()
            self._spawn_module("autograder.executor")
        deadline = time.monotonic() + min(self.limits.question_s, self._left())
        try:
            self._write(wire.frame({"op": "run", "text": text, "args": [wire.encode(a) for a in args],
                                    "each": each}), deadline)
            reply = self._receive(deadline)
            return wire.decode(reply["ok"])
        except TimeoutError:
            self._stop()
            raise Unanswered(f"The grader's run of your program did not finish computing {{what}} within "
                             f"{self.limits.question_s:.0f} s") from None
        except (EOFError, BrokenPipeError):
            raise Unanswered(f"The grader's run of your program {death(self._stop())} while computing "
                             "{what}") from None

    def _prepare_home(self) -> None:
        account = pwd.getpwnam(self.user)
        (self.work / "tmp").mkdir(parents=True, exist_ok=True)
        for path in (self.work, self.work / "tmp"):
            os.chown(path, account.pw_uid, account.pw_gid)
        os.chmod(self.work, 0o700)


def available(user: str = USER) -> bool:
    """Whether this machine has the executor's account (the image and setup.sh create it)."""
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False
