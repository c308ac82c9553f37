"""Gates: what a value must come from before the tests credit it, as values that carry their
sentence.

A gate is a requirement on an evidence.Report (the executor's report of a program, or a
witness's report of an eager call) and the sentence the student reads when it is not met.
Each exercise declares its gates once, in its grader.py, as tuples named for what they
guard (silu_ffi's FORWARD: no host callback, ran, depends on the FFI kernels, no math in
JAX); a test names the gates it presupposes and `check`s them on its report:

    FORWARD = (gates.NoHostCallback("{what} runs a host callback ...; {advice}"),
               gates.RAN,
               gates.DependsOn("{what} does not come from your FFI kernels", piece=evidence.FFI))
    gates.check(report, FORWARD, what="jax.jit(silu_ffi)", advice="...")

A sentence is a str.format template: `check`'s words fill it, and each gate adds what it
observed ({refused}; DependsOn and NoOps append the counts and opcodes they found).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.shared import checks, evidence, poison
from autograder.shared.evidence import Report


@dataclass(frozen=True)
class Gate:
    sentence: str

    def check(self, report: Report, **words) -> None:
        raise NotImplementedError

    def say(self, **words) -> str:
        return self.sentence.format(**words)


@dataclass(frozen=True)
class Ran(Gate):
    """The program ran on the grader's inputs ({refused}: why not)."""

    def check(self, report: Report, **words) -> None:
        checks.expect(report.ran, self.say(refused=report.refused, **words))


# The plain sentence of Ran, for exercises that say nothing more when a program did not run.
RAN = Ran("The grader's run of the compiled program of {what} failed: {refused}.")


@dataclass(frozen=True)
class NoHostCallback(Gate):
    """The program holds no host callback (pure_callback, io_callback, debug.callback)."""

    def check(self, report: Report, **words) -> None:
        checks.expect(not report.targets(evidence.HOST_CALLBACK), self.say(**words))


@dataclass(frozen=True)
class CallsFfi(Gate):
    """The program calls at least one FFI target."""

    def check(self, report: Report, **words) -> None:
        checks.expect(bool(report.targets(evidence.FFI)), self.say(**words))


@dataclass(frozen=True)
class OnlyTargets(Gate):
    """The program calls no FFI target but `allowed` ({others}: the ones it calls besides)."""
    allowed: frozenset = frozenset()

    def check(self, report: Report, **words) -> None:
        others = sorted(set(report.targets(evidence.FFI)) - self.allowed)
        checks.expect(not others, self.say(others=", ".join(others), **words))


@dataclass(frozen=True)
class NotFromHostCallback(Gate):
    """No output changes when the program's host callbacks are poisoned (a jax.debug.print
    that changes no value is fine)."""

    def check(self, report: Report, **words) -> None:
        run = report.run(evidence.HOST_CALLBACK)
        changed = run is not None and any(
            np.any(poison.changed(c, p)) for c, p in zip(report.value, run.outputs))
        checks.expect(not changed, self.say(**words))


@dataclass(frozen=True)
class HasPiece(Gate):
    """The program has `piece` (its report holds a run with it poisoned)."""
    piece: str = evidence.FFI

    def check(self, report: Report, **words) -> None:
        checks.expect(report.has(self.piece), self.say(**words))


@dataclass(frozen=True)
class DependsOn(Gate):
    """Every entry of every output changes when `piece` is poisoned (a decoy, a result
    multiplied by zero or dropped as dead code changes nothing); the sentence is completed
    with how many entries do not."""
    piece: str = evidence.FFI

    def check(self, report: Report, **words) -> None:
        checks.expect_depends(report, self.piece, message=self.say(**words))


@dataclass(frozen=True)
class StraightFrom(Gate):
    """Every entry of every output IS an output of `piece`, copied with nothing computed
    after it (reshapes and transposes are fine)."""
    piece: str = evidence.FFI

    def check(self, report: Report, **words) -> None:
        checks.expect_straight(report, self.piece, message=self.say(**words))


@dataclass(frozen=True)
class NoOps(Gate):
    """The optimized program holds none of `forbidden` (HLO opcodes); the sentence is
    completed with the ones found."""
    forbidden: frozenset = frozenset()

    def check(self, report: Report, **words) -> None:
        checks.expect_no_ops(report.opcodes, self.forbidden, message=self.say(**words))


def check(report: Report, gates: tuple[Gate, ...], **words) -> Report:
    """Every gate of `gates`, in order, on `report`; returns the report."""
    for gate in gates:
        gate.check(report, **words)
    return report
