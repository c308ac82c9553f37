"""The reference answer (its base), then code that tries to kill or stop every other process it can see (its
parent, PID 1, the grader) and to become root. Grading goes on unharmed.

assignment: ffi_lowering
base: reference
score: 10
"""
import os, signal

for pid in [os.getppid(), 1] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
    if pid != os.getpid():
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.seteuid(0)):
    try:
        attempt()
    except OSError:
        pass
