"""pure_callback_doubler's own evidence records: what its witness hands the grader. Registered with
autograder.shared.evidence, so the wire decodes them into these classes, each field checked,
like the shared records; imported by both the witness module and the grader module of the
exercise."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.shared.evidence import record


@record
@dataclass(frozen=True)
class CallResult:
    """What one call of the answer returned (pure_callback_doubler's witness.call_result)."""
    type: str                              # its class name, "ArrayImpl", "ShapeDtypeStruct"
    jax_array: bool                        # it is a jax.Array
    shape: list[int] | None                # None: it has no shape (a tuple of ints)
    value: Any = None                      # the array when it is a jax or NumPy array, else None
                                           # (an array of Python objects travels as the wire's Opaque)


@record
@dataclass(frozen=True)
class DirectCall:
    """One call of a host function on one input, made by the grader and observed: what it
    returned or raised and what it did (pure_callback_doubler's witness.host_calls)."""
    output: str                            # what it wrote to fds 1/2 or sys.stdout/stderr
    files: list[str]                       # paths it opened
    events: list[str]                      # processes, sockets, removals it started
    jax: bool                              # JAX code ran inside it
    error: str | None = None               # "Error: message" when it raised
    values: list[Any] = field(default_factory=list)   # every output leaf as an array ([] when it raised)
    type: str = ""                         # the first output's class, "numpy.ndarray" ("" when it raised)

    @property
    def outputs(self) -> int:
        return len(self.values)

    @property
    def value(self) -> Any:
        """The first output (None: there is none)."""
        return self.values[0] if self.values else None


@record
@dataclass(frozen=True)
class HostCalls:
    """The one callback's host function called directly on each input (witness.host_calls)."""
    callbacks: int                         # how many callback equations the trace holds
    calls: list[DirectCall]                # one per input, in order ([] unless callbacks == 1)
