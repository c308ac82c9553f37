"""The grading platform, one folder per place its code runs (docs/architecture.md's table):

- shared/    used on both sides of the trust boundary: the wire protocol, the tests' API
             (probe, checks), the poison pattern, submissions, the course's files.
- witness/   the student's process (unprivileged, limited): runs the notebook, answers
             questions. Everything here may be subverted by student code.
- runner/    the trusted grading process in the container (root): runs the hidden tests,
             starts and kills the witness, writes the results.
- executor/  the grader's own process without student Python (its own uid): reads the
             compiled program an answer built and runs it with the course's kernels and
             the grader's build of the answer's C++.
- student/   what the student's notebook imports: Otter's Notebook with a safer export.
- authoring/ instructors' tools run in the image: make assign, make validate, the bare floor,
             the point tables.
- host/      the instructor's machine (host venv): make grade, report, bench, demo.

Imports point one way (tests/test_layout.py): nothing in runner/ or host/ reaches witness/.
"""
