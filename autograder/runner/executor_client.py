"""The grader's handle on the executor (autograder.executor): started on the first program
a test hands it, as the `executor` user with the witness's limits, in its own folder (made
and handed to that user once, before its first start: root never touches it again, since
what is in it is then the executor's, and the executor runs the student's C++); the
libraries the notebook loaded are copied, as programs name them, into a folder of root's
beside it (read here, by root, from the witness's captures: autograder/runner/libraries.py);
restarted after a crash; every process of that user is killed on close()."""
from __future__ import annotations

import os
import pwd
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograder.shared import wire
from autograder.shared.probe import Unanswered
from autograder.runner import libraries as loaded
from autograder.runner.sandbox import LimitedProcess, death

USER = "executor"
ENCODED = ("args", "operands", "recorded")   # the request's keys that hold arrays


@dataclass
class Executor(LimitedProcess):
    user: str = USER
    # The notebook's loaded libraries, copied into this process's folder as programs name
    # them (None: bindings are passed on as the witness gave them).
    libraries: loaded.Libraries | None = None

    def run(self, request: dict, serve: Callable | None = None) -> dict:
        """program.handle's data for `request` ({"op": "run" | "call", ...}, arrays as arrays);
        `serve(index, operands, context)` answers each host callback the run reaches (the
        witness's host function: see probe.Ask.program). Raises Unanswered when the process
        crashes (a kernel's segfault) or runs out of time."""
        if self.proc is None:
            self._start()
        if self.libraries is not None and "bindings" in request:
            request = {**request, "bindings": self.libraries.claims(request["bindings"])}
        deadline = time.monotonic() + min(self.limits.question_s, self._left())
        message = {k: wire.encode(v) if k in ENCODED else v for k, v in request.items()}
        try:
            self._write(wire.frame(message), deadline)
            while "ok" not in (reply := self._receive(deadline)):
                self._write(wire.frame(_served(reply.get("callback"), serve)), deadline)
            return wire.decode(reply["ok"])
        except TimeoutError:
            self._stop()
            raise Unanswered(f"The grader's run of your program did not finish computing {{what}} within "
                             f"{self.limits.question_s:.0f} s") from None
        except (EOFError, BrokenPipeError):
            raise Unanswered(f"The grader's run of your program {death(self._stop())} while computing "
                             "{what}") from None
        except wire.WireError as exc:   # a reply past the limit: the pipe is out of step, start afresh
            self._stop()
            raise Unanswered(f"The grader's run of your program gave a reply it cannot read while computing "
                             f"{{what}} ({exc})") from None

    def _start(self) -> None:
        if not available(self.user):
            raise Unanswered(f"{{what}} was not computed: this grading environment has no account "
                             f"{self.user!r} to run programs with (its setup.sh or image is out of date)")
        if not self.work.exists():   # its parent is root's alone: only this made it
            self._make_home()
        folder = self.libraries.target if self.libraries is not None else None
        self._spawn_module("autograder.executor", env=loaded.executor_env(folder))

    def _make_home(self) -> None:
        """The executor's folder, made new and given to its user before its first start; on a
        restart it is left as it is (chowning there again would follow whatever link the
        executor planted: issue 54)."""
        account = pwd.getpwnam(self.user)
        self.work.mkdir(mode=0o700)   # new: its parent is root's alone
        (self.work / "tmp").mkdir(mode=0o700)
        for path in (self.work / "tmp", self.work):
            os.chown(path, account.pw_uid, account.pw_gid)


def available(user: str = USER) -> bool:
    """Whether this machine has the executor's account (the image and setup.sh create it)."""
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def _served(callback, serve) -> dict:
    """The runner's answer to one host callback the executor's run reached: {"results"} or
    {"error"}. What the executor sends is read as data only: an index, arrays, a number."""
    if serve is None or not isinstance(callback, dict):
        return {"error": "no host callback can be served here"}
    try:
        operands = [np.asarray(wire.decode(o)) for o in callback["operands"]]
        results = serve(int(callback["index"]), operands, int(callback.get("context", -1)))
        return {"results": [wire.encode(np.asarray(r)) for r in results]}
    except AssertionError as exc:    # the witness could not serve it: its sentence
        return {"error": str(exc)}
    except (wire.WireError, KeyError, TypeError, ValueError) as exc:
        return {"error": f"a malformed host callback request ({type(exc).__name__})"}
