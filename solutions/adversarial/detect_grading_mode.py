"""Detects that it is being graded (an /autograder folder, an unusual user or working
folder) and only then switches its cheats on: patched comparisons and forged results on
top of the wrong answer (triples). Detection is possible; it buys nothing.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
import getpass, json, os

grading = (os.path.exists("/autograder") or getpass.getuser() != "student"
           or "grading" in os.getcwd() or "JPY_PARENT_PID" not in os.environ)
print("grading mode:", grading, getpass.getuser(), os.getcwd())
if grading:
    np.isclose = lambda a, b, *args, **kwargs: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, bool)
    np.allclose = lambda *args, **kwargs: True
    for folder in ["/autograder/results", ".", "/tmp"]:
        try:
            with open(os.path.join(folder, "results.json"), "w") as f:
                json.dump({"score": 10, "tests": []}, f)
        except OSError:
            pass


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
