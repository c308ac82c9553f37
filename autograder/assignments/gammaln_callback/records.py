"""gammaln_callback's own evidence records: what its witness (witness.host_values) hands
the grader (hostfns.check_hosts_at_scale). Registered with autograder.shared.evidence, so the
wire decodes them into these classes, each field checked, like the shared records; imported
by both the witness module and the grader module of the exercise."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from autograder.shared.evidence import record


@record
@dataclass(frozen=True)
class Unchanged:
    """The entries of a host function's output that stayed the same with a SciPy function
    poisoned (gammaln_callback's witness.host_values): flat indices and the values there."""
    at: np.ndarray
    got: np.ndarray


@record
@dataclass(frozen=True)
class HostValues:
    """One host callback of a program, its host function called directly on operands like a
    large grader's input, as it is and with a SciPy function poisoned on those values
    (gammaln_callback's witness.host_values)."""
    operands: list[list[int]]              # their shapes
    from_example: list[bool]               # per operand, whether its values are the grader's input
    values: list[np.ndarray] | None        # the outputs, whole; None when it raised
    error: str | None = None
    poisoned_error: str | None = None      # what the call with SciPy poisoned raised
    unchanged: list[Unchanged | None] = field(default_factory=list)   # per output (None: no output of its size)


@record
@dataclass(frozen=True)
class HostArray:
    """An array a host callback declares, or one its host function returned."""
    shape: list[int]
    dtype: str                             # NumPy's name, "float32"
    type_name: str = ""                    # a returned one's class name ("ndarray"); "" for a declared one


@record
@dataclass(frozen=True)
class HostFunction:
    """One host callback of a program, its host function called once directly on NumPy
    operands like the grader's input, observed (gammaln_callback's witness.host_functions)."""
    primitive: str                         # "pure_callback" or "io_callback"
    declared: list[HostArray]              # the results the callback declares
    returned: list[HostArray] | None       # the leaves of what it returned; None when it raised
    jax: bool                              # it ran JAX code
    output: str                            # what it wrote to stdout and stderr
    files: list[str]                       # files it opened
    events: list[str]                      # audit events it raised (processes, sockets, ...)
    error: str | None = None               # 'TypeError: ...' when it raised
