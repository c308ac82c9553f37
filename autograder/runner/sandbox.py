"""The grader's handle on the witness: the student's notebook running as an unprivileged
user with resource limits, answering questions over a pair of pipes.

- Started with setpriv (uid/gid of `student`, no groups, no new privileges) and prlimit
  (address space, processes, file size, open files, CPU time, no core dumps), and a work
  folder holding only the notebook. Root's part of the start (setpriv) runs with PATH alone
  in its environment: the process's own environment, the dynamic loader's variables among
  them (LD_AUDIT and the folder of the notebook's library copies), is set by `env -i` once
  privileges are gone, so nothing the loader of a root process reads is ever set.
- Its output (the notebook's prints, compiler messages) is drained by a thread and kept
  up to limits.output_bytes for the instructor's log; the rest is counted and dropped.
- A cell that crashes or hangs the process is skipped on the next start; a question
  that crashes or hangs it fails with the reason (`Unanswered`) and the next question
  gets a fresh process. Every process of the student's uid is killed on `close()`.
"""
from __future__ import annotations

import os
import pwd
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.shared import errors, wire, xla_cache
from autograder.shared.config import Limits
from autograder.shared.probe import Unanswered
from autograder.runner.libraries import witness_env


# What a reply that is not a well-formed message raises while it is read and used.
PROTOCOL_ERRORS = (wire.WireError, ValueError, TypeError, AttributeError, KeyError, RecursionError)
BROKE_PROTOCOL = "wrote to the grader's pipe and broke the grading protocol"


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


_MEANING = {"SIGSEGV": "a segmentation fault", "SIGABRT": "an abort", "SIGBUS": "a bus error",
            "SIGFPE": "an arithmetic error", "SIGILL": "an illegal instruction",
            "SIGKILL": "killed: out of memory or a resource limit", "SIGXCPU": "CPU time limit",
            "SIGXFSZ": "file size limit"}


def death(returncode: int) -> str:
    """How the process ended, in words."""
    if returncode < 0:
        name = signal_name(returncode)
        return f"crashed with {name}" + (f" ({_MEANING[name]})" if name in _MEANING else "")
    return f"ended the Python process (exit code {returncode}: sys.exit, os._exit or a fatal error)"


# The whole environment of root's part of a start (setpriv, until it drops privileges).
ROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}


def limited_command(user: str, limits: Limits, argv: list[str], env: dict[str, str] | None = None) -> list[str]:
    """`argv` as `user` (no groups, no new privileges, no capabilities) under the rlimits,
    with exactly the environment `env`, set by `env -i` after privileges are dropped: run the
    result with ROOT_ENV as its environment."""
    account = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}",
            "--clear-groups", "--no-new-privs", "--inh-caps=-all",
            "prlimit", f"--as={limits.address_space_bytes}", f"--nproc={limits.processes}",
            f"--fsize={limits.file_bytes}", f"--nofile={limits.open_files}", f"--cpu={limits.cpu_s}",
            "--core=0", "--", "env", "-i", *(f"{k}={v}" for k, v in (env or {}).items()), *argv]


@dataclass
class LimitedProcess:
    """A Python module run as `user` under the limits, spoken to over a pair of pipes; its
    output is kept (up to limits.output_bytes) for the instructor's log."""
    work: Path
    limits: Limits                                       # otter_config.json's `limits`
    user: str = "student"
    log: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    starts: int = 0
    proc: subprocess.Popen | None = None
    born: float = field(default_factory=time.monotonic)

    def _left(self) -> float:
        left = self.born + self.limits.grading_s - time.monotonic()
        if left <= 0:
            raise Unanswered(f"{{what}} was not computed: the {self.limits.grading_s:.0f} s of grading "
                             "time were used up")
        return left

    def _spawn_module(self, module: str, *args: str, env: dict | None = None) -> None:
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        env = {**(env or {}), "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
               "HOME": str(self.work), "TMPDIR": str(self.work / "tmp"), "LANG": "C.UTF-8",
               "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "1",
               "JAX_INTEROP_KERNEL_CACHE": str(self.work / ".cache" / "kernels"),
               "JAX_INTEROP_PREBUILT_KERNELS": os.environ.get(
                   "JAX_INTEROP_PREBUILT_KERNELS", "/opt/jax-interop/prebuilt-kernels"),
               **xla_cache.environment(self.user, self.work / "tmp")}
        cmd = limited_command(self.user, self.limits,
                              [sys.executable, "-I", "-m", module, *args, str(req_r), str(rep_w)], env)
        self.proc = subprocess.Popen(cmd, cwd=self.work, env=ROOT_ENV, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     pass_fds=(req_r, rep_w), start_new_session=True)
        os.close(req_r)
        os.close(rep_w)
        self.starts += 1
        threading.Thread(target=self._drain, args=(self.proc.stdout,), daemon=True).start()

    def _drain(self, stream) -> None:
        while chunk := stream.read1(65536):
            room = self.limits.output_bytes - len(self.log)
            self.log += chunk[:max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def _read(self, n: int, deadline: float) -> bytes:
        """`n` bytes, each read once into their place (a 20 MB reply arrives in 64 KB pieces:
        appending them would copy it over and over)."""
        data = bytearray(n)
        view, got = memoryview(data), 0
        while got < n:
            ready, _, _ = select.select([self._rep_r], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                raise TimeoutError
            chunk = os.readv(self._rep_r, [view[got:]])
            if not chunk:
                raise EOFError
            got += chunk
        return bytes(data)

    def _receive(self, deadline: float) -> dict:
        return wire.receive(lambda n: self._read(n, deadline), self.limits.message_bytes)

    def _write(self, data: bytes, deadline: float) -> None:
        os.set_blocking(self._req_w, False)
        data = memoryview(data)   # slices without copies
        while data:
            _, ready, _ = select.select([], [self._req_w], [], max(deadline - time.monotonic(), 0))
            if not ready:
                raise TimeoutError
            data = data[os.write(self._req_w, data):]

    def _stop(self, grace: float = 0.5) -> int:
        """Kill the process and everything else its user runs; its exit status. `grace`: how
        long a process that is ending (after EOF on its pipe) may take to give its own status."""
        if self.proc is None:
            return 0
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        kill_user(self.user)
        code = self.proc.wait()
        for fd in (self._req_w, self._rep_r):
            os.close(fd)
        self.proc = None
        return code

    def close(self) -> None:
        """Kill it now: a process still answering has no status worth waiting for (the grace
        cost every grading 0.5 s per process)."""
        self._stop(grace=0)


@dataclass
class Witness(LimitedProcess):
    cells: Path = Path()                                 # the cells to run: autograder.shared.gradable
    skip: dict[int, str] = field(default_factory=dict)   # cell index -> why it is skipped
    errors: list = field(default_factory=list)           # [cell, "Error: message"] of the last start
    notebook_s: float = 0.0                              # seconds spent starting it (make bench's profile)

    def _spawn(self) -> None:
        self._spawn_module("autograder.witness", str(self.cells), ",".join(map(str, sorted(self.skip))) or "-",
                           env=witness_env(self.work))   # a copy of each library the notebook loads

    # ----------------------------------------------------------- notebook ---
    def _start(self) -> None:
        """Run the notebook until it is ready, skipping cells that crash or hang it."""
        started = time.perf_counter()
        try:
            self._run_notebook()
        finally:
            self.notebook_s += time.perf_counter() - started

    def _run_notebook(self) -> None:
        while self.proc is None and self.starts < self.limits.notebook_starts:
            self._spawn()
            deadline, cell = time.monotonic() + min(self.limits.notebook_s, self._left()), None
            try:
                while True:
                    message = self._receive(deadline)
                    if "cell" in message:
                        cell = int(message["cell"])
                    elif "ready" in message:
                        self.errors = list(message["ready"].get("errors", []))[:100]
                        return
            except TimeoutError:
                self._stop()
                reason = f"did not finish within {self.limits.notebook_s:.0f} s"
            except EOFError:
                reason = death(self._stop())
            except PROTOCOL_ERRORS:
                self._stop()
                reason = BROKE_PROTOCOL
            if cell is None:        # died before the first cell: nothing to skip
                self.skip[-1] = reason
                break
            self.skip[cell] = reason
        if self.proc is None:
            raise Unanswered("{what} was not computed: your notebook could not be run")

    def notes(self) -> list[str]:
        """What the student should know about how the notebook ran."""
        notes = [f"Cell {i + 1} of your notebook {why}; it was skipped and the rest of the "
                 "notebook was run again without it." for i, why in sorted(self.skip.items()) if i >= 0]
        notes += [f"Cell {e[0] + 1} of your notebook raised {errors.scrub(str(e[1]))[:300]}." for e in self.errors
                  if isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and e[0] not in self.skip]
        if -1 in self.skip:
            notes.append(f"Your notebook's process {self.skip[-1]} before running any cell.")
        return notes

    # ---------------------------------------------------------- questions ---
    def answer(self, expr: str, inputs: dict, serving: bool = False) -> dict:
        """The witness's reply to one question ({"ok": data} or {"error": text}); raises
        Unanswered (and drops the process) when it crashes, hangs or breaks the protocol.
        `serving`: a host callback served for the executor (the witness defers its guard's
        restore to the next other question: a run may reach thousands of callbacks)."""
        self._start()
        deadline = time.monotonic() + min(self.limits.question_s, self._left())
        try:
            self._write(wire.frame({"op": "eval", "expr": expr, "inputs": inputs, "serving": serving}), deadline)
            reply = self._receive(deadline)
            if not ("ok" in reply or isinstance(reply.get("error"), str)):
                raise wire.WireError("a reply holds neither a value nor an error")
            return reply
        except TimeoutError:
            self._stop()
            raise Unanswered(f"Your notebook's process did not finish computing {{what}} within "
                             f"{self.limits.question_s:.0f} s") from None
        except (EOFError, BrokenPipeError):
            raise Unanswered(f"Your notebook's process {death(self._stop())} while computing {{what}}") from None
        except PROTOCOL_ERRORS:
            self._stop()
            raise Unanswered(f"Your notebook's process {BROKE_PROTOCOL} while computing {{what}}") from None


def processes_of(user: str) -> list[int]:
    """Live processes of `user` (zombies, already dead, are left out; none for an account
    that does not exist)."""
    try:
        uid = pwd.getpwnam(user).pw_uid
    except KeyError:
        return []
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _uid_of(p) == uid]


def kill_user(user: str) -> None:
    """SIGKILL every process of `user` until none is left (a fork storm included)."""
    for _ in range(100):
        pids = processes_of(user)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)
        _reap()


def _reap() -> None:
    """Collect dead children (the runner is their subreaper: see become_subreaper)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def become_subreaper() -> None:
    """Orphans of the student's processes become our children, so they can be reaped."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _uid_of(pid: str) -> int | None:
    """The real uid of a live process; None for zombies and vanished processes."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("State:") and line.split()[1] in ("Z", "X"):
                    return None
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None
