"""The executor's process: read programs, run them, reply with data.

    python -I -m autograder.executor REQUEST_FD REPLY_FD

Started by autograder.runner (runner/executor.py) as the `executor` user, another uid than
the witness's (so the student's process can neither signal, trace nor read it), with the
same limits. It imports no student code and loads only the course's kernels
(autograder.executor.program). Requests: {"op": "run", "text": StableHLO, "args": [arrays],
"each": bool}; replies: {"ok": report} (program.report's data).
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
        if message.get("op") != "run":
            break
        args = [wire.decode(a) for a in message.get("args", [])]
        report = program.run_safely(str(message["text"]), args, each=bool(message.get("each")))
        sys.stdout.flush()
        wire.send(replies, {"ok": wire.encode(report)})


if __name__ == "__main__":
    main(*sys.argv[1:])
