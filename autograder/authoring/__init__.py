"""Instructors' tools run in the grading image: make assign (assign), make validate
(validate) and make bench's bare floor (bare_run)."""
