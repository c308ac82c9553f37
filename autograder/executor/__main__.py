"""The executor's process: read programs, run them, reply with data.

    python -I -m autograder.executor REQUEST_FD REPLY_FD

Started by autograder.runner (runner/executor.py) as the `executor` user, another uid than
the witness's (so the student's process can neither signal, trace nor read it), with the
same limits. It imports no student Python: it loads the course's kernels, and the C++ files
the answer wrote (silu_ffi's), compiled here by the grader (autograder/executor/cpp.py,
handlers.py). Requests: {"op": "sources", "sources", "headers", "skipped"} (no reply; the
runner's read_answer_cpp), then program.handle's {"op": "run" | "call", ...}; replies:
{"ok": data}.
"""
from __future__ import annotations

import os
import sys


def main(request_fd: str, reply_fd: str) -> None:
    from autograder.executor import program
    from autograder.shared import wire

    requests = os.fdopen(int(request_fd), "rb")
    replies = os.fdopen(int(reply_fd), "wb")
    program.course_targets()   # load the course's kernels before the first program
    while True:
        message = wire.receive(requests.read, None)
        op = message.get("op")
        if op == "sources":
            program.answer_cpp(message.get("sources") or {}, message.get("headers") or {}, message.get("skipped") or [])
            continue
        if op not in ("run", "call"):
            break
        for key in ("args", "operands"):
            if key in message:
                message[key] = [wire.decode(a) for a in message[key]]
        reply = program.handle(message)
        sys.stdout.flush()
        wire.send(replies, {"ok": wire.encode(reply)})


if __name__ == "__main__":
    main(*sys.argv[1:])
