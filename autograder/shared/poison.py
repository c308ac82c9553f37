"""The grader's poison values, shared by both sides of grading.

A structural verdict is a statement about data flow: the executor re-runs the answer's
compiled program with one piece (a kernel's custom_call, a host callback) retargeted to
the poison handler of kernels/poison.cc (and the witness does so for an eager call and for
reduce_sum_rules' rules), and the grader requires every output element to change. Where the task says a result *is* a kernel's or a callback's output, the grader
also requires every poisoned output element to be one of the values below: nothing was
computed after the piece. NumPy only: this module is imported by test code.
"""
from __future__ import annotations

import numpy as np

TARGET = "__grader_poison__"   # the FFI target name the poison handler is registered under
SYMBOL = "Poison"
# The same poison with another salt. A poisoned output entry can equal the clean one by chance
# (an honest value equal to its poison value: about 1 in 2^24 of the values in [1, 2), one in
# twenty gradings of silu_ffi's 2 million gradient entries): the executor runs a program again
# with this handler wherever an entry did not change, and keeps the entries that did
# (autograder/executor/program.py; again() below merges the two runs). Both chances together:
# about 1 in 2^48.
TARGET_AGAIN = "__grader_poison_again__"
SYMBOL_AGAIN = "PoisonAgain"
SALT_AGAIN = 0x5BD1E995
TARGETS = {TARGET: SYMBOL, TARGET_AGAIN: SYMBOL_AGAIN}


def values(n: int, salt: int = 0) -> np.ndarray:
    """Entry i of every poisoned float buffer, for i < n: +-(1 + k/2^23) with k a hash of
    i ^ salt (exact in float32; the same arithmetic as PoisonValue in kernels/poison.cc, whose
    uint32 products wrap as these do). In place, in 32 bits: a million values in about 12 ms."""
    h = np.arange(n, dtype=np.uint32)
    h ^= np.uint32(salt)
    h *= np.uint32(2654435761)
    h += np.uint32(0x9E3779B9)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    v = (h >> np.uint32(9)).astype(np.float32)
    v *= np.float32(1 / 8388608)   # a power of two: exact
    v += np.float32(1)
    np.negative(v, out=v, where=(h & np.uint32(1)).astype(bool))
    return v


def changed(clean, poisoned) -> np.ndarray:
    """Element-wise: did the poisoned output differ from the clean one? (NaN == NaN here,
    so a NaN that stays NaN did not change.) The question "does this output use the piece
    at all?" reads this with any()."""
    clean, poisoned = np.asarray(clean, np.float64), np.asarray(poisoned, np.float64)
    return np.array(~((clean == poisoned) | (np.isnan(clean) & np.isnan(poisoned))))


def covered(clean, poisoned, sizes: list[int] | None = None) -> np.ndarray:
    """Element-wise, for "every entry depends on the piece" (read with all()): changed, or
    unable to show a change because the clean value is itself one of the poison values
    (`sizes`: the poisoned buffers' element counts; the output's own size by default). With
    2^24 poison values in [1, 2), an output of 131072 entries in that range meets one by
    chance in about one grading of a hundred, and the values tests grade what it holds.
    Never read it with any(): an excused entry is not evidence that the piece is used."""
    out = changed(clean, poisoned)
    same = ~out
    if same.any():   # only the unchanged entries are looked up (most outputs have none)
        pool = values(max([*(sizes or []), int(np.size(poisoned))], default=0))
        out[same] = np.isin(np.asarray(poisoned, np.float64)[same].astype(np.float32), pool)
    return out


def straight(poisoned, sizes: list[int]) -> np.ndarray:
    """Element-wise: is the poisoned output one of the poison values (either salt's: an entry
    poisoned again is the second's), i.e. copied from the poisoned piece with nothing
    computed after it? `sizes`: the element counts of the poisoned buffers, as the witness
    reports them."""
    n = max(sizes, default=0)
    got = np.asarray(poisoned, np.float32)
    out = np.isin(got, values(n))
    if not out.all():   # only the rest are looked up in the second pool
        out[~out] = np.isin(got[~out], values(n, SALT_AGAIN))
    return out


def again(clean: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One poisoned output from two runs: the first's, but where an entry did not change
    there and did under the second poison, the second's (changed() reads it as changed;
    an entry the piece does not reach is unchanged in both)."""
    redo = ~changed(clean, first) & changed(clean, second)
    return np.where(redo, second, first) if redo.any() else first
