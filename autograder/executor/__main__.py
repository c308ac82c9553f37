"""The executor's process: read programs, run them, reply with data.

    python -I -m autograder.executor REQUEST_FD REPLY_FD

Started by autograder.runner (runner/executor_client.py) as the `executor` user, another uid than
the witness's (so the student's process can neither signal, trace nor read it), with the
same limits. It imports no student Python: it loads the course's kernels, and (silu_ffi's)
the libraries the notebook loaded, as it loaded them, copied by the runner into
$JAX_INTEROP_LOADED_LIBRARIES (autograder/runner/libraries.py, handlers.py). Requests:
program.handle's {"op": "run" | "call" | "structure", ...}; replies: {"ok": data}. While a program runs, each host callback
it reaches is sent as {"callback": {"index", "operands", "context"}}, answered by the runner
with {"results": [...]} or {"error": text} (the witness's host function serves it).
"""
from __future__ import annotations

import os
import sys


def main(request_fd: str, reply_fd: str) -> None:
    from autograder.executor import allocations
    allocations.dirty()
    from autograder.shared import xla_cache
    xla_cache.link()   # a batch's warm executables (make validate), before anything compiles
    from autograder.executor import program
    from autograder.shared import wire

    requests = os.fdopen(int(request_fd), "rb")
    replies = os.fdopen(int(reply_fd), "wb")
    program.course_targets()   # load the course's kernels before the first program

    def serve(index: int, operands: list, context: int) -> list:
        """A host callback's results, asked of the runner (XLA calls this from its own thread
        while the main thread waits for the program: the pipes are free)."""
        wire.send(replies, {"callback": {"index": index, "operands": [wire.encode(o) for o in operands],
                                         "context": context}})
        answer = wire.receive(requests.read, None)
        if "results" not in answer:
            raise RuntimeError(str(answer.get("error", "the host callback was not served"))[:500])
        return [wire.decode(r) for r in answer["results"]]

    while True:
        message = wire.receive(requests.read, None)
        op = message.get("op")
        if op not in ("run", "call", "structure"):
            break
        for key in ("args", "operands", "recorded"):   # runner/executor_client.py ENCODED
            if key in message:
                message[key] = wire.decode(message[key])
        allocations.dirty()   # again: the student's C++ may have turned it off (allocations.py)
        reply = program.handle(message, serve=serve)
        sys.stdout.flush()
        wire.send(replies, {"ok": wire.encode(reply)})


if __name__ == "__main__":
    main(*sys.argv[1:])
