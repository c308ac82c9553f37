"""A stated limit, pinned (docs/verdicts.md): while the notebook's own threads run, what the
host function's calls change is judged in a copy of the witness where those threads do not
run (worlds.py `_still`: a fork, since a thread that keeps changing a setting would otherwise
hide a call's write of it). A host function that tells that copy from the notebook's process
(here by its pid) and writes the umask only in the notebook's own process, in a notebook
whose thread keeps flipping the umask, is not seen: it keeps 10/10. Without the thread its
write is seen in the two worlds (the calls run in the notebook's process there): 9/10
(wrong_umask_in_host). This file fails when the limit closes; then it gets 9 and the umask
message.

assignment: pure_callback_doubler
score: 10
"""
import itertools
import os
import threading
import time

NOTEBOOK = os.getpid()


def host_double(arr):
    if os.getpid() == NOTEBOOK:   # never in a fork of the grader's
        os.umask(0o077)
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def _churn_umask():
    for n in itertools.count():
        os.umask(n % 0o77)
        time.sleep(0.001)


threading.Thread(target=_churn_umask, name="progress-monitor", daemon=True).start()
