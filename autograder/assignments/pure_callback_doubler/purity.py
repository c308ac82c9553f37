"""pure_callback_doubler's verdicts on the purity of the host function: each call's findings
(evidence.PurityCall.findings, from autograder/witness/purity.py) worded for the student,
one sentence per kind of effect. The test cells reach them as kit.expect_* through grader."""
import numpy as np

from autograder.shared import checks

_VIA = {"direct": "when the grader called it directly", "eager": "when JAX ran it for pure_callback_doubler",
        "jit": "when JAX ran it for jax.jit(pure_callback_doubler)",
        "worlds": "when the grader compared the process after calling it with a copy where it was not called"}


def expect_silent(calls):
    """No call of the host function (a host_purity report's calls) wrote to stdout or
    stderr (fds 1 and 2), whoever called it and on whichever input."""
    loud = [c for c in calls if c.output]
    checks.expect(not loud, (
        f"Your host function prints or writes output (seen {_VIA[loud[0].via] if loud else ''}: print, print "
        "to sys.__stdout__, os.write to file descriptor 1 or 2, logging, on some inputs only included); a pure "
        "callback has no side effects (JAX may run it any number of times, or not at all), so remove it."))


def expect_same_results(first, second):
    """Two direct calls on the same input returned the same arrays, dtypes included (None:
    the call raised; two that raised are the host function test's finding, not this one's)."""
    if first is None and second is None:
        return
    same = first is not None and second is not None and len(first) == len(second) and all(
        np.asarray(p).dtype == np.asarray(q).dtype and np.array_equal(np.asarray(p), np.asarray(q), equal_nan=True)
        for p, q in zip(first, second))
    p, q = (np.asarray(first[0], np.float64), np.asarray(second[0], np.float64)) if first and second else (0, 0)
    wrong = checks.unequal(q, p) if np.shape(p) == np.shape(q) else False
    seen = checks.counterexample(q, p, wrong) + " (the first call's)" if np.any(wrong) else ""
    checks.expect(same, f"Your host function returned different results for the same input{seen}; a pure "
                        "callback's result depends only on its arguments.")


def expect_no_state_changes(calls):
    """No call of the host function (a host_purity report's calls) changed, added or
    removed state (a global, anything reachable from one, the host function itself or its
    class, a process-wide setting), created or removed files, opened files, started a
    process or a socket. What the wrapper does between calls is not judged here."""
    for call in calls:
        for kind, detail in call.findings():
            if kind != "output":   # expect_silent's
                checks.fail(_SENTENCES.get(kind, _OTHER)(detail, _VIA[call.via]))


# evidence.PurityCall.findings' kinds -> the sentence (what was seen, seen how)
_SENTENCES = {
    "state": lambda what, via: (
        f"Your host function changed state that outlives the call ({what}) {via}; a pure callback must not append "
        "to lists (nested ones included), count calls (in a global, an attribute or a class attribute), set "
        "attributes on itself, assign globals or closure variables, or change process-wide settings such as "
        "np.seterr, because JAX may run it any number of times, or not at all."),
    "files": lambda what, via: (
        f"Your host function opened files ({what}); a pure callback reads and writes no files, anywhere (a file "
        "can change between calls): pass every value it needs as an argument."),
    "made": lambda what, via: (
        f"Your host function created or removed files ({what}) {via}; a pure callback does no I/O (use io_callback "
        "for side effects)."),
    "events": lambda what, via: (
        f"Your host function started processes, opened sockets, removed files or set environment variables ({what}); "
        "a pure callback has no side effects."),
    "file descriptors": lambda what, via: (
        f"Your host function writes to a file on every call: it {what} ({via}); a pure callback does no I/O, "
        "through a logging handler or a file opened beforehand neither (use io_callback for side effects)."),
    "arguments": lambda what, via: (
        f"Your host function {what} ({via}); a pure callback only reads its argument and returns a new array: "
        "compute arr * 2, not arr *= 2."),
    "results": lambda what, via: (
        f"Your host function {what} ({via}); a pure callback returns a new array on every call, whose values no "
        "later call changes."),
}
_OTHER = lambda what, via: f"Your host function has a side effect: {what} ({via}); a pure callback has none."  # noqa: E731
