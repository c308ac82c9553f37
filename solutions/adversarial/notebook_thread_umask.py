"""Attack on the two worlds' excuse for the notebook's own threads (issue 54): when threads
the notebook started are alive, worlds.py (`_not_theirs`) observes the process twice more
and drops every difference that also changes between those two observations, taking it for
the work of those threads (a progress bar's monitor). Here a thread started by the notebook
keeps rewriting the umask (a new value every millisecond, never the 077 the host function
writes), so the two extra observations always disagree on it, and the host function's own
umask write (wrong_umask_in_host) is excused as the thread's: 10/10 before the fix. What a
host function does must not be excused by a thread of the notebook's that does the same:
the answer's own score, 9, with the umask named.

assignment: pure_callback_doubler
base: wrong_umask_in_host
score: 9
messages:
  - changed state that outlives the call (the process's umask (os.umask))
"""
import itertools
import os
import threading
import time


def _churn_umask():
    # 0o000 .. 0o076 (group and other bits only: the notebook's own files stay readable)
    for n in itertools.count():
        os.umask(n % 0o77)
        time.sleep(0.001)


threading.Thread(target=_churn_umask, name="progress-monitor", daemon=True).start()
