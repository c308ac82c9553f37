"""ffi_lowering's observations, run where the student's code runs. Exposed to the tests'
questions as `witness`."""
from __future__ import annotations


def primitive_identity(primitive):
    """What `primitive` (the notebook's rms_norm_prim_p) is, as an records.PrimitiveIdentity:
    ("missing", "") when it is None; ("class", its class's qualified name) when it is not
    exactly a jax.extend.core.Primitive; ("dict", the type of its attribute dictionary) when
    that was replaced; else ("extra", the names its instance sets beyond what Primitive(name),
    def_impl and def_abstract_eval set) (an empty list for an untouched primitive)."""
    from jax.extend.core import Primitive

    from autograder.assignments.ffi_lowering.records import PrimitiveIdentity
    if primitive is None:
        return PrimitiveIdentity("missing", "")
    if type(primitive) is not Primitive:
        return PrimitiveIdentity("class", str(type(primitive).__module__) + "." + str(type(primitive).__qualname__))
    if type(vars(primitive)) is not dict:
        return PrimitiveIdentity("dict", type(vars(primitive)).__name__)
    own = ("name", "impl", "abstract_eval", "multiple_results")
    return PrimitiveIdentity("extra", [str(k) for k in dict.keys(vars(primitive)) if k not in own])
