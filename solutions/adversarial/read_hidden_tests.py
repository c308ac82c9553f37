"""Looks for the hidden tests (the autograder's source folder, the submission folder, the
parent folders, /tmp, other processes' files) and prints what it finds; it raises what it found
as the cell's error, quoted in the feedback.

assignment: ffi_lowering
score: 0
absent:
  - "def test_"
  - "# HIDDEN"
"""
import glob, os

found = []
for pattern in ["/autograder/source/tests/*.py", "/autograder/**/*.py", "/autograder/*",
                "../*.py", "../**/tests/*.py", "/tmp/**/*.py", "/home/**/*.py", "/root/**/*.py",
                "/proc/*/cwd/tests/*.py", "/proc/*/root/autograder/source/tests/*.py"]:
    for path in glob.glob(pattern, recursive=True):
        try:
            with open(path) as f:
                text = f.read()
            if "def test_" in text:
                found.append(text)
        except OSError:
            pass
print("\n".join(found))

if found:   # the cell's error is quoted in the feedback
    raise RuntimeError(found[0][found[0].index("def test_"):][:250])
