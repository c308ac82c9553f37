"""Shared library of the hidden tests and the grading path: jaxpr and StableHLO
inspection (`inspection`), assertion helpers with student-facing messages (`checks`)
and the C++ kernel build helper (`kernel_build`)."""
