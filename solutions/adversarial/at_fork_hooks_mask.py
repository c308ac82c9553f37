"""Attack on the two worlds (issue 54): the purity test judges a host function by forking the
witness twice, before and after its calls, and comparing what each fork observes of itself
(autograder/witness/worlds.py, observable.py). os.fork runs the at-fork hooks registered in
the process, so a notebook's `os.register_at_fork(after_in_child=...)` runs first thing in
both worlds, before they observe anything: here it sets the umask to one value in every
fork, which wipes out the difference the host function made (wrong_umask_in_host: it sets
the umask to 077 on every call). Before the fix both worlds read the same umask and the
impure host function kept 10/10. The worlds must run no at-fork hook of the notebook's: the
answer's own score, 9, with the umask named.

assignment: pure_callback_doubler
base: wrong_umask_in_host
score: 9
messages:
  - changed state that outlives the call (the process's umask (os.umask))
"""
import os

# Every child of os.fork (the two worlds among them) starts with the same umask, whatever
# the parent's was when it forked: the host function's write never reaches an observation.
os.register_at_fork(after_in_child=lambda: os.umask(0o022))
