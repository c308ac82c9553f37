"""The witness's own forks (the two worlds, autograder/witness/worlds.py) run the at-fork hooks
registered before the notebook ran, and none of the notebook's (issue 54: a notebook's
`os.register_at_fork(after_in_child=...)` ran in each world and replaced what observes it).

CPython keeps `os.register_at_fork`'s hooks in three lists of the interpreter (before,
after in the parent, after in the child), reachable from no Python name. `snapshot()`, called
by the witness before any student code, registers a sentinel in each, finds each list as the
one list that refers to its sentinel (gc.get_referrers), and copies their contents then;
`grader_hooks()` puts those copies in place for one fork and the lists' contents back after
it. Python's own bookkeeping (threading's, random's reseed, logging's locks) and the
grader's imports' hooks are registered before the notebook, so the worlds' forks keep them.
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager

# Tuples bound once, before the notebook: the witness's guard puts a rebound name back, and a
# tuple's contents cannot change.
_LISTS: tuple = ()      # the interpreter's three lists, in os.register_at_fork's order
_SNAPSHOT: tuple = ()   # their contents before the notebook ran


def _before() -> None:
    """Sentinels: found in the interpreter's lists, they find the lists."""


def _parent() -> None:
    pass


def _child() -> None:
    pass


def snapshot() -> None:
    """Find the hook lists and remember what they hold now (before any student code)."""
    global _LISTS, _SNAPSHOT
    os.register_at_fork(before=_before, after_in_parent=_parent, after_in_child=_child)
    lists = []
    for sentinel in (_before, _parent, _child):
        found = [r for r in gc.get_referrers(sentinel) if type(r) is list and r and r[-1] is sentinel]
        if len(found) != 1:   # another interpreter's layout: forks run every hook, as before
            return
        lists.append(found[0])
    _LISTS, _SNAPSHOT = tuple(lists), tuple(tuple(hooks) for hooks in lists)


@contextmanager
def grader_hooks():
    """Around one os.fork(): only the hooks of the snapshot run (in the parent, the lists are
    as they were again afterwards; in the child they stay so)."""
    saved = [list(hooks) for hooks in _LISTS]
    for hooks, kept in zip(_LISTS, _SNAPSHOT):
        hooks[:] = list(kept)
    pid = os.getpid()
    try:
        yield
    finally:
        if os.getpid() == pid:
            for hooks, was in zip(_LISTS, saved):
                hooks[:] = was
