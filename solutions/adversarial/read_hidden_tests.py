"""Looks for the hidden tests (the autograder's source folder, the submission folder, the
parent folders, /tmp, other processes' files) and prints what it finds; it only answers
if it found a test, as a student tailoring the answer to the tests would.

assignment: pure_callback_doubler
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

if found:
    def host_double(arr):
        return np.asarray(arr) * 2

    def pure_callback_doubler(x):
        raise RuntimeError(found[0][:5000])   # and show them in the feedback
