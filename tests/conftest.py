"""The tests that call probe.connect on a plain dict stand where grader.check does: in a
notebook whose Notebook registered the in-process answering."""
import autograder.student.in_process  # noqa: F401
