"""The grading work done bare, for `make bench`: in ONE Python process, execute the code
cells of a notebook and run the autograder zip's tests against its globals, with no
Jupyter kernel, no container set-up and no Otter run. Prints one JSON line.

    python -m autograder.authoring.bare_run NOTEBOOK AUTOGRADER_ZIP
"""
import json
import resource
import sys
import time
import zipfile

t0 = time.perf_counter()

import nbformat  # noqa: E402
from autograder.shared.otter_classes import ExceptionTestFile  # noqa: E402  (as the runner imports it)

from autograder.shared.gradable import gradable_cells  # noqa: E402
# The notebook answers its own questions, as under grader.check (the runner's witness and
# executor are what the floor leaves out); the notebook's grader cell, which registers this
# too, is not among its gradable cells.
from autograder.student import in_process  # noqa: E402,F401


def main(notebook: str, zip_path: str) -> None:
    env: dict = {"__name__": "__main__"}
    nb = nbformat.read(notebook, as_version=4)
    for _, source in gradable_cells(nb):   # the cells the runner's witness would run
        exec(compile(source, "<cell>", "exec"), env)
    score = possible = 0.0
    with zipfile.ZipFile(zip_path) as z:
        for name in z.namelist():
            if name.startswith("tests/") and name.endswith(".py"):
                tf = ExceptionTestFile.from_string(z.read(name).decode(), path=name)
                tf.run(env)
                score, possible = score + tf.score, possible + tf.possible
    print(json.dumps({"score": score, "possible": possible, "seconds": time.perf_counter() - t0,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
