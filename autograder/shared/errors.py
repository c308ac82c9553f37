"""An error's text as a student reads it (issue 39): what their code did, never XLA's status
codes, its error numbers, the CpuCallback wrapper or a traceback.

`describe(exc)` is the one way an exception that student code caused becomes words
("ValueError: negative input (raised in your host function host_double)"); `scrub(sentence)`
is the last pass over every sentence a student reads (checks.feedback), for texts that
were formatted elsewhere (the executor's "running it raised ...").

Hand-written: XLA's messages have no structured form in Python (a JaxRuntimeError carries
one string), so the known ones are matched by pattern here, in one table.
"""
from __future__ import annotations

import re

LIMIT = 300   # characters of one error's message

# What a student never reads (autograder.authoring.readable checks every catalogue answer's feedback).
RAW = ("INVALID_ARGUMENT", "INTERNAL:", "FAILED_PRECONDITION", "RuntimeProgramInputMismatch", "CpuCallback",
       "Traceback (most recent call last)", "JaxRuntimeError", "XlaRuntimeError", "openxla.org/xla/errors")

# XLA's absl status codes ("INVALID_ARGUMENT: "), its error numbers ("E0102: RuntimeProgramInputMismatch: "),
# the link after them, and its internal prefixes.
_NOISE = [
    re.compile(r"\b(?:INVALID_ARGUMENT|INTERNAL|FAILED_PRECONDITION|UNIMPLEMENTED|RESOURCE_EXHAUSTED|"
               r"OUT_OF_RANGE|NOT_FOUND|ALREADY_EXISTS|UNKNOWN|ABORTED|CANCELLED|DEADLINE_EXCEEDED|"
               r"PERMISSION_DENIED|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED): "),
    re.compile(r"\bE\d{4}: [A-Za-z]+:\s*"),
    re.compile(r"\s*See https://openxla\.org/\S+ for more details\.?"),
    re.compile(r"\s*=== Source Location Trace: ===.*", re.S),
    re.compile(r"\[execute\] "),
]

# XLA's messages that say nothing to a student, and what they mean.
_MEANING = [
    (re.compile(r"Executable\([^)]*\) expected parameter (\d+) of size \d+ \((\S+?)(?:\{[\d,]*\})?\) but got "
                r"buffer with incompatible size \d+ \((\S+?)(?:\{[\d,]*\})?\)"),
     r"the compiled program's input \1 is \2, but it was given \3"),
    (re.compile(r"Failed to decode all FFI handler operands \(bad operands at: ([\d, ]+)\)"),
     r"the FFI handler could not decode the call's operands at \1 (their type or number is not the "
     r"one the handler declares)"),
    (re.compile(r"Duplicate FFI handler registration for (\S+) on platform .*"),
     r"the FFI target \1 is already registered with another handler"),
]

_CALLBACK = "CpuCallback error calling callback:"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line \d+, in (?P<name>\S+)', re.M)
_XLA_TYPES = {"JaxRuntimeError", "XlaRuntimeError"}


def _theirs(file: str) -> bool:
    """A frame of the student's code: not a library's, not Python's, not the grader's."""
    return "/site-packages/" not in file and not re.match(r"/usr/(local/)?lib/python", file)


def _callback(text: str) -> str:
    """The Python error inside XLA's CpuCallback wrapper, and where it was raised."""
    body = text.split(_CALLBACK, 1)[1]
    lines = [l for l in body.splitlines() if l.strip()]
    error = next((l.strip() for l in reversed(lines) if not l.startswith(" ")
                  and not l.startswith("Traceback")), "an error")
    frames = [m for m in _FRAME.finditer(body)]
    last = frames[-1] if frames else None
    if last is not None and _theirs(last["file"]) and last["name"] != "<module>":
        where = f"raised in your host function {last['name']}"
    else:
        where = "JAX's check of what your host function returned"
    return f"{_meaning(error)[:LIMIT]} ({where})"


def _meaning(text: str) -> str:
    for pattern in _NOISE:
        text = pattern.sub("", text)
    for pattern, meaning in _MEANING:
        text = pattern.sub(meaning, text)
    return text.strip()


def explain(type_name: str, text: str) -> str:
    """'TypeError: the first line of its message', XLA's and the callback wrapper's texts
    translated (an error inside a host callback reads as that error, and where)."""
    if _CALLBACK in text:
        return _callback(text)
    lines = [l.strip() for l in _meaning(text).splitlines() if l.strip()]
    name = "an XLA error" if type_name in _XLA_TYPES else type_name
    return f"{name}: {lines[0][:LIMIT]}" if lines else name


def describe(exc: BaseException) -> str:
    return explain(type(exc).__name__, str(exc))


_RAISED = re.compile(r"\b(?:Jax|Xla)RuntimeError: ")


def scrub(sentence: str) -> str:
    """A sentence formatted elsewhere, with XLA's noise removed and a callback's traceback
    reduced to its error (the last pass before a student reads it; `describe` does better
    where the exception itself is at hand)."""
    if _CALLBACK in sentence:
        head, _, rest = sentence.partition(_CALLBACK)
        rest = re.sub(r"\s*Traceback \(most recent call last\):", "", rest)
        rest = re.sub(r'\s*File "[^"]*", line \d+, in \S+(?:\n {4,}.*)*', "", rest)
        sentence = _RAISED.sub("", head) + (rest.strip() or "an error") + " (in a host callback)"
    return _RAISED.sub("an XLA error: ", _meaning(sentence))
