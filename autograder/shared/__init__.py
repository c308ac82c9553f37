"""Code used on both sides of the trust boundary; it imports nothing from the other folders
(one exception: probe.connect's in-process branch for Otter's own runs, where the grader
IS the student's process)."""
