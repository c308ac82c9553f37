"""Writes garbage to every pipe it holds beyond stdout and stderr (the one the grader
reads included): a huge length prefix, then malformed JSON, then a forged full-marks reply.
The grader drops that process, skips the cell and says why; nothing else is hurt.

assignment: ffi_lowering
score: 0
messages:
  - broke the grading protocol
"""
import json, os, stat, struct

forged = json.dumps({"ok": True, "ready": {"errors": []}, "cell": [1]}).encode()
pipes = []
for fd in range(3, 256):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            pipes.append(fd)
    except OSError:
        pass
for fd in pipes:
    for data in (struct.pack(">Q", 10**12), struct.pack(">Q", 9) + b"{not json", struct.pack(">Q", len(forged)) + forged):
        try:
            os.write(fd, data)
        except OSError:
            pass
