"""The ffi_lowering exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="ffi_lowering",
    core="every compiled path of rms_norm_prim_p runs the course's FFI target rms_norm, with eps passed as its float32 attribute",
    sections={   # each test's concept -> the chapter section that teaches it
        'The eager impl': '5.8',
        'jit and the eps parameter': '5.10',
        'The lowering': '5.8',
        'The batching rule': '5.9',
        'The primitive and its eps parameter': '5.6',
        'eps as an FFI attribute': '5.10',
        'The eps parameter': '5.10',
        'Nested vmap and jit': '5.9',
        "Shapes, the input's range and abstract evaluation": '5.7',
    },
)
