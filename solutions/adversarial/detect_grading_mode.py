"""Detects that it is being graded (an /autograder folder, an unusual user or working
folder) and only then switches its cheats on: patched comparisons and forged results on
top of a wrong answer (its base, ffi_lowering's wrong_lower_fun_jnp.py). Detection is possible; it buys nothing.

assignment: ffi_lowering
base: wrong_lower_fun_jnp
score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind holds no custom_call to the FFI target rms_norm
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
