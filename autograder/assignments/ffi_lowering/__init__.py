"""The ffi_lowering exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="ffi_lowering",
    core="every compiled path of rms_norm_prim_p runs the course's FFI target rms_norm, with eps passed as its float32 attribute",
)
