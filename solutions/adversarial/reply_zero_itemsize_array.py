"""Attack on the runner's re-encoding of a witness reply (issue 54): the correct doubler
(reference.py), whose host function, when the witness serves it for the grader's executor
(autograder/witness/handover.py `serve`), rebinds the witness's `wire.encode` for that one
reply, so that the reply holds a NumPy array of zero-byte items (dtype V0) and 2^62
elements: 128 bytes of .npy header, no data. The guard puts back what a notebook patched in
this package only after the notebook and after each question (a run of served callbacks
defers even that), never while the student's code is still answering the question, so the
rebinding holds for exactly the reply it forges. The runner decodes it (np.load allocates
nothing for zero-byte items) and encodes it again for the executor
(runner/executor_client.py `_served`): np.save walks all 2^62 elements, in the runner, with
no deadline; the grading timed out after 600 s and the correct answer lost every point.
So that the executor asks the witness at all (it serves a call from the witness's record of
its own run when the operands match), the host function raises in that recording run.
The attack fires once per grading (a file in the notebook's folder says it did), so a
refused reply costs one served call, not every later one. The grader refuses such a
reply unread (numbers only, each array's declared size checked against its bytes: issue 54)
and the grading ends in seconds. The refused reply was the host function's answer to the
grader's run of jax.jit(pure_callback_doubler) on shape (7,), so that run has no values:
the tests that rest on it fail, with the sentence below; what the reference earns without
that run (the empty input's own question) it keeps: 1.

assignment: pure_callback_doubler
base: reference
score: 1
messages:
  - came back as something that is not data (an array of |V0 (only arrays of numbers travel))
"""
import io as _io
import os as _os
import sys as _sys

import numpy.lib.format as _npy_format
from autograder.shared import wire as _wire   # the witness's own module (the grader's source is public)

_FIRED = ".zero_itemsize_fired"               # in the notebook's folder: survives a restarted witness
_honest_host_double = host_double


def _called_from(name: str) -> bool:
    """Whether a function `name` of autograder/witness/handover.py is on the stack."""
    frame = _sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == name and frame.f_code.co_filename.endswith("handover.py"):
            return True
        frame = frame.f_back
    return False


def _zero_itemsize_npy() -> bytes:
    """The .npy bytes of an array of 2^62 void items of 0 bytes: a header and nothing else."""
    buf = _io.BytesIO()
    _npy_format.write_array_header_1_0(buf, {"descr": "|V0", "fortran_order": False, "shape": (1 << 62,)})
    return buf.getvalue()


def host_double(arr):
    if _called_from("call"):      # the witness's own run (handover._recorded): no record, so served live
        raise RuntimeError("not recorded")
    if _called_from("serve") and not _os.path.exists(_FIRED):
        open(_FIRED, "w").close()
        real = _wire.encode

        def encode(value):        # this reply only: the served results become the V0 array
            _wire.encode = real
            return [{"$npy": _wire.Blob(_zero_itemsize_npy())}]
        _wire.encode = encode
    return _honest_host_double(arr)
