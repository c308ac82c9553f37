"""`make mutants ASSIGNMENT=<name>` (issue 49): mutants of an assignment's reference answer,
each told wrong or equivalent by an oracle that does not ask the grader (oracle.py), then
graded exactly as `make validate` grades a catalogue answer; a wrong mutant that keeps full
marks is a survivor, a hole in the hidden tests (report.py writes them as CSV and HTML).

    generate.py     the mutants of Python pieces: values, thresholds, positions, provenance, effects
    cxx.py          the mutants of C++ statements (the kernels of an answer's source string)
    assignments/    each assignment's pieces, the answer mutated, and its oracle
    oracle.py       is a mutant wrong? runs the cells, asks the assignment's oracle (values
                    on a ladder of shapes against float64, provenance with the piece
                    poisoned); an effect is wrong by construction
    __main__.py     generate, judge, grade in parallel, report

docs/mutants.md keeps the counts.
"""
