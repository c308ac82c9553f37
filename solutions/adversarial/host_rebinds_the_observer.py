"""Attack on the code that observes the two worlds (issue 54: what the grader relies on inside
a student-run process): the host function sets the umask (as wrong_umask_in_host) and rebinds
the witness's own reading of it, autograder.witness.observable._process, so that the world
forked after the calls reports the umask the world before them saw (the perturbed value it
finds on its first call). The witness's guard put rebound names back only after a question,
and the worlds are forked inside one. Two checks now see it: the host function called
directly is seen rebinding what it reaches (the sentence below names the grader's names it
rebound), and the worlds put the grader's code back before each fork and name what the
calls rebound (tests/test_worlds.py, case patches_observer, where the umask is named too):
the answer's own score, 9.

assignment: pure_callback_doubler
base: wrong_umask_in_host
score: 9
messages:
  - changed state that outlives the call (_STATUS, _fds, _process)
"""
import os

from autograder.witness import observable   # the grader's source is public

_BEFORE = []


def host_double(arr):
    old = os.umask(0o077)
    if old != 0o077:            # the worlds moved the umask before the calls: remember that value
        _BEFORE[:] = [old]
    real = observable._process

    def forged(found, skip):
        real(found, skip)
        if _BEFORE:
            found["the process's umask (os.umask)"] = f"{_BEFORE[0]:04o}"
    observable._process = forged
    return np.asarray(arr) * 2
