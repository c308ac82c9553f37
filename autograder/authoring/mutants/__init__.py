"""`make mutants ASSIGNMENT=<name>` (issue 49): mutants of an assignment's reference answer,
each told wrong or equivalent by an oracle that does not ask the grader (oracle.py), then
graded exactly as `make validate` grades a catalogue answer; a wrong mutant that keeps full
marks is a survivor, a hole in the hidden tests (report.py writes them as CSV and HTML).

    generate.py   the mutants: values, thresholds, positions, provenance, effects
    oracle.py     is a mutant wrong? its values on a ladder of shapes against a float64
                  reference, its provenance with the piece poisoned; an effect by construction
    __main__.py   generate, judge, grade in parallel, report

Started in session 24 with pure_callback_doubler's mutants; the other assignments' pieces
and oracles follow (docs/mutants.md keeps the counts).
"""
