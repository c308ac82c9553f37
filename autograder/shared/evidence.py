"""The evidence: what crosses a process boundary and what a verdict reads, as frozen records.

    witness ──Handover──> grader ──request──> executor ──Report / KernelCall──> grader
    witness ──HostCall (one observed host-function call)──> grader

A program the answer built is handed over by the witness (`Handover`: its StableHLO text and
what the witness says of it), run by the executor on the grader's inputs, as it is and with
pieces poisoned, and reported (`Report`: its custom_calls as `Call`s, its value, a `Run` per
poisoned piece, the optimized program's opcodes). The tests read these by attribute.

autograder.shared.wire encodes a record as {"$record": <class name>, "fields": {...}} and
decodes only the classes of `RECORDS`, checking each field against its annotation: a record
the student's process sends is data of the declared shape or a WireError, never an object
of its choosing. NumPy only (imported by test code).
"""
from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any

import numpy as np

RECORDS: dict[str, type] = {}   # the classes the wire builds, by name


def record(cls: type) -> type:
    """Class decorator: `cls` (a frozen dataclass) travels as a typed record."""
    RECORDS[cls.__name__] = cls
    return cls

# The pieces a Report's `poisoned` names (besides "call:<i>", one FFI custom_call alone, and
# the dotted names of host functions a test replaced, e.g. "scipy.special.gammaln").
FFI = "ffi"                       # every FFI custom_call
HOST_CALLBACK = "host_callback"   # every host callback (pure_callback, io_callback, debug.callback)
PURE_CALLBACK = "pure_callback"   # the host callbacks without side effects: jax.pure_callback's


def call_piece(index: int) -> str:
    """The piece name of custom_call number `index` poisoned alone."""
    return f"call:{index}"


@record
@dataclass(frozen=True)
class Attribute:
    """One attribute of a custom_call."""
    value: Any          # Python value: float, int, bool, str, np.ndarray, or the MLIR text
    type: str           # MLIR type, e.g. "f32", "i64", "ui64"; "" for strings and others


@record
@dataclass(frozen=True)
class Call:
    """One custom_call of a program, in program order, read before anything runs."""
    target: str
    kind: str                              # "ffi", "host_callback" or "builtin"
    attributes: dict[str, Attribute]       # the FFI attributes as the lowering typed them (eps=...)
    operand_types: list[str]               # MLIR tensor types, "tensor<8x16xf32>"
    result_types: list[str]
    side_effect: bool                      # has_side_effect: io_callback's, never pure_callback's
    handler: str = ""                      # an id shared by every target bound to one function
    course: bool = False                   # the course's kernel (or bound to one), not the answer's

    def attribute(self, name: str) -> Any:
        """The value of attribute `name`, or None."""
        found = self.attributes.get(name)
        return None if found is None else found.value


@record
@dataclass(frozen=True)
class Run:
    """The program's flat outputs with one piece poisoned, and the element counts of the
    poisoned buffers (autograder.shared.poison decides from both)."""
    outputs: list[np.ndarray]
    sizes: list[int]

    def only(self, outputs: list[int]) -> Run:
        return Run([self.outputs[i] for i in outputs], self.sizes)


@record
@dataclass(frozen=True)
class Program:
    """What it takes to call one of a program's kernels again (Ask.kernel_call)."""
    text: str
    bindings: dict[str, Any]


@record
@dataclass(frozen=True)
class Report:
    """The executor's report of one program (autograder.executor.program.report)."""
    calls: list[Call]
    value: list[np.ndarray] | None          # the flat outputs on the grader's inputs; None: not run
    poisoned: dict[str, Run | None]         # piece -> its run; None: the program has no such piece
    opcodes: list[str]                      # of the compiled module, after XLA dropped dead code
    refused: str = ""                       # why it was not run ("" when it ran)
    program: Program | None = None          # set by Ask.program
    errors: dict[str, str] = field(default_factory=dict)   # piece -> why its poisoned run raised

    @property
    def ran(self) -> bool:
        return self.value is not None

    def run(self, piece: str) -> Run | None:
        """The run with `piece` poisoned (None: not poisoned, or no such piece)."""
        return self.poisoned.get(piece)

    def has(self, piece: str) -> bool:
        return self.run(piece) is not None

    def targets(self, kind: str = FFI) -> list[str]:
        """The targets of the calls of `kind`, in program order."""
        return [c.target for c in self.calls if c.kind == kind]

    def only(self, outputs: list[int], piece: str) -> Report:
        """This report reduced to the chosen outputs, clean and with `piece` poisoned."""
        run = self.run(piece)
        return dataclasses.replace(self, value=[self.value[i] for i in outputs],
                                   poisoned={piece: None if run is None else run.only(outputs)})


@record
@dataclass(frozen=True)
class KernelCall:
    """One custom_call's kernel called directly on the grader's operands (program.call)."""
    operand_types: list[str]
    outputs: list[np.ndarray] | None       # None: the operands do not fit, or it was refused
    refused: str = ""


# MLIR's element types and NumPy's names for them.
MLIR_ELEMENTS = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8",
                 "i16": "int16", "i32": "int32", "i64": "int64", "ui8": "uint8", "ui16": "uint16",
                 "ui32": "uint32", "ui64": "uint64"}


def tensor_type(shape: tuple, dtype: str) -> str:
    """(3, 7), "float32" -> "tensor<3x7xf32>"; (), "float32" -> "tensor<f32>"."""
    element = {v: k for k, v in MLIR_ELEMENTS.items()}.get(str(np.dtype(dtype)), str(dtype))
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def dims(text: str) -> tuple[int, ...]:
    """An MLIR tensor type's dimensions, whatever its element type: "tensor<3x7xi1>" -> (3, 7)."""
    *sizes, _ = text.removeprefix("tensor<").removesuffix(">").split("x")
    return tuple(int(d) for d in sizes)


def tensor_shape(text: str) -> tuple[tuple[int, ...], str]:
    """tensor_type's inverse: "tensor<3x7xf32>" -> ((3, 7), "float32"). TypeError for anything
    else (tuples, tokens, dynamic shapes, element types without a NumPy dtype)."""
    *dims, element = text.removeprefix("tensor<").removesuffix(">").split("x")
    if not (text.startswith("tensor<") and text.endswith(">")) or element not in MLIR_ELEMENTS \
            or not all(d.isdigit() for d in dims):
        raise TypeError(f"a value of type {text} cannot be rebuilt")
    return tuple(int(d) for d in dims), MLIR_ELEMENTS[element]


LOOP_INIT = "loop-init"   # an Origin source: a constant a loop carries in, or a scatter or update slice writes over


@record
@dataclass(frozen=True)
class Origin:
    """Where one value of a program comes from, read on its graph (shared/dataflow.py):
    `sources` "input:<i>", "call:<i>" (custom_call i), "constant", LOOP_INIT; `math` the
    operations other than layout ones between them and the value ([]: the sources, moved);
    `places` [root, box, map, why] per piece: where each element sits in input <i> (positions.py)."""
    sources: list[str]
    math: list[str]
    places: list[Any] = field(default_factory=list)

    def calls(self) -> list[int]:
        """The custom_calls it comes from."""
        return [int(s.removeprefix("call:")) for s in self.sources if s.startswith("call:")]

    def moved_from(self, allowed: set[int]) -> bool:
        """Whether it is, in every element, the output of custom_calls in `allowed`, only moved."""
        calls = set(self.calls())
        others = set(self.sources) - {f"call:{i}" for i in calls} - {LOOP_INIT}
        return bool(calls) and calls <= allowed and not others and not self.math


@record
@dataclass(frozen=True)
class Structure:
    """A program lowered at abstract shapes and read without running (executor op "structure")."""
    calls: list[Call]
    outputs: list[Origin]                  # per result of main
    operands: list[list[Origin]]           # per custom_call, per operand
    inputs: list[str]                      # main's argument types, "tensor<2147483647xf32>"
    results: list[str]
    refused: str = ""                      # why it could not be read ("" when it was)


@record
@dataclass(frozen=True)
class Lowered:
    """What the witness hands over of `jax.jit(fn).lower(*shapes)` at abstract shapes."""
    text: str                              # "" when lowering raised
    error: str = ""                        # the lowering's exception, as text


@record
@dataclass(frozen=True)
class Handover:
    """What the witness hands over of `jax.jit(fn).lower(*args)` (witness/handover.py)."""
    text: str                              # the StableHLO text
    bindings: dict[str, Any]               # FFI target -> the library function it was registered from
    pid: int                               # under which the witness keeps the program's host callbacks
    recorded: list[Any]                    # its own run's callback calls: [[context, [[index, operands, results]]]]


@record
@dataclass(frozen=True)
class HostCall:
    """One call of a student's host function, observed in the witness
    (autograder.witness.hostcall.call). `result` and `codes` stay in the witness (the host
    function's own objects); the rest is data."""
    output: str                            # what it wrote to fds 1/2 or sys.stdout/stderr
    files: list[str]                       # paths it opened outside Python's own files
    events: list[str]                      # other audited events (processes, sockets, removals)
    jax: bool                              # JAX code ran during the call
    error: str | None = None               # "Error: message" when it raised
    warnings: list[str] = field(default_factory=list)   # Python warnings it caused (recorded, not printed)
    result: Any = None                     # what it returned
    codes: list[Any] = field(default_factory=list)      # code objects of the Python functions that started
    descriptors: list[str] = field(default_factory=list)   # what it did to files held open (call(descriptors=True))
    warning_filters: bool = False          # it changed warnings.filters or showwarning (put back after the call)


class RecordError(ValueError):
    """Fields that do not make the record (autograder.shared.wire turns it into a WireError)."""


def build(name: str, fields: dict) -> Any:
    """The record `name` of RECORDS from decoded `fields`, each checked against its annotation."""
    cls = RECORDS.get(name)
    if cls is None:
        raise RecordError(f"unknown record {name!r}")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    if not isinstance(fields, dict) or set(fields) - known or required - set(fields):
        raise RecordError(f"{name} takes the fields {sorted(known)}")
    for key, value in fields.items():
        if not _fits(value, hints[key]):
            raise RecordError(f"{name}.{key} is not a {hints[key]}")
    return cls(**fields)


def _fits(value, hint) -> bool:
    """Does decoded `value` have the type `hint` (the annotations used above)?"""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) and _fits(v, args[1]) for k, v in value.items())
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


# ---- pure_callback_doubler's witness: witness.host_purity (witness/purity.py observes the calls) ----

@record
@dataclass(frozen=True)
class PurityCall:
    """One call of a host function observed between two snapshots of the notebook's state
    and of the working folder (pure_callback_doubler's witness.host_purity)."""
    via: str                               # "direct" (the grader's call), "eager" or "jit" (JAX's)
    output: str
    files: list[str]
    events: list[str]
    changed: list[str]                     # names of the state the call changed ("(the host function)": its own)
    added: list[str]
    removed: list[str]
    files_added: list[str]                 # names in the working folder
    files_removed: list[str]
    error: str | None = None
    effects: list[str] = field(default_factory=list)   # other effects, each a phrase ("wrote 40 bytes to /tmp/log ...")

    def findings(self) -> list[tuple[str, str]]:
        """Each effect the call showed, as (kind, detail), in the order the verdicts judge them:
        "output" (its text), "state" (the first three names), "files" (opened), "made" (files
        created or removed), "events", then each of `effects` as (its kind, its phrase): "file
        descriptors", "arguments", "results", ... Each exercise words them its own way."""
        names = [("the host function itself" if n == "(the host function)" else n)
                 for n in self.changed + self.added + self.removed]
        found = [("state", names), ("files", self.files), ("made", self.files_added + self.files_removed),
                 ("events", self.events)]
        return ([("output", self.output)] if self.output else []) + [(k, ", ".join(v[:3])) for k, v in found if v] \
            + [(k, d) for k, _, d in (e.partition(": ") for e in self.effects)]


@record
@dataclass(frozen=True)
class HostPurity:
    """Every call of the one callback's host function, each observed on its own
    (witness.host_purity)."""
    callbacks: int                         # how many callback equations the trace holds
    calls: list[PurityCall]                # in order: the direct calls, then JAX's eager and jit ones
    values: list[list[Any] | None]         # the direct calls' outputs as arrays (None: it raised)
