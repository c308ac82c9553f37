"""reduce_sum_rules's own evidence records: what its witness hands the grader. Registered with
autograder.shared.evidence, so the wire decodes them into these classes, each field checked,
like the shared records; imported by both the witness module and the grader module of the
exercise."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.shared.evidence import record


@record
@dataclass(frozen=True)
class PrimitiveState:
    """What a notebook's Primitive is, as data (reduce_sum_rules' witness.primitive_state).
    `impl`, `lowering`, `abstract_eval` are what its own pieces compute on the grader's
    example, each an "Error: message" string where it raised, None where it is no Primitive."""
    type: str                              # its class, "module.QualName"
    plain: bool                            # that class is jax.extend.core.Primitive itself
    attributes: list[str]                  # the names in its instance __dict__
    name: str
    impl: Any = None                       # an array, or "Error: message"
    lowering: Any = None                   # jax.jit of Primitive.bind, the notebook's own lowering
    abstract_eval: Any = None              # {"shape", "dtype", "effects"}, or "Error: message"
