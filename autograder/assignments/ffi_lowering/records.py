"""ffi_lowering's own evidence records: what its witness hands the grader. Registered with
autograder.shared.evidence, so the wire decodes them into these classes, each field checked,
like the shared records; imported by both the witness module and the grader module of the
exercise."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.shared.evidence import record


@record
@dataclass(frozen=True)
class PrimitiveIdentity:
    """What a notebook's Primitive object is (ffi_lowering's witness.primitive_identity)."""
    kind: str          # "missing" (None), "class" (not exactly a Primitive), "dict" (its __dict__
                       # replaced) or "extra" (a Primitive; `detail` lists what its instance sets beyond
                       # Primitive(name), def_impl and def_abstract_eval)
    detail: Any        # the class's or the dictionary's type name, or that list of names
