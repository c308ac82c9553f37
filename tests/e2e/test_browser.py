"""The student's path in a real browser: make lab's server (docker/lab.sh, the lab image,
unprivileged), headless Chromium from Debian driven by Playwright. For every assignment:
open the student notebook, type a wrong answer from the catalogue into the answer cell,
run all: grader.check shows its failure sentence (a counterexample where values differ,
and the chapter section to read), and the export cell, run
before saving, refuses and writes no zip; then the reference, Kernel > Restart and Run All: every check passes; save,
run the export cell, download the zip through the page and grade it with make grade's
path: the catalogue's score. Screenshots of both go to dist/screenshots/."""
import os
import re
import subprocess
import time
import uuid

import pytest
from playwright.sync_api import sync_playwright

from autograder.host import grade
from autograder.shared import paths, catalogue
from autograder.student.notebook import REFUSAL
from tests.e2e.conftest import CONFIG, ROOT, run
from tests.e2e.lab_page import CHROMIUM, LabNotebook

WRONG = {"reduce_sum_rules": "wrong_jvp_scaled", "gammaln_callback": "wrong_derivative_is_gammaln",
         "silu_ffi": "wrong_backward_formula", "ffi_lowering": "wrong_batch_defvectorized",
         "pure_callback_doubler": "wrong_jnp_no_callback"}
# what grader.check says of them is a value failure: it must name a counterexample (issue 39)
COUNTEREXAMPLE = re.compile(r"differs from the reference at \d+ of \d+ entries: at .+?, got \S+, expected \S+")
PORT = 18888
SHOTS = ROOT / "dist" / "screenshots"


@pytest.fixture(scope="module")
def lab(built, tmp_path_factory):
    """make lab's server on a fresh copy of the student notebooks, and a browser page."""
    for name in paths.NAMES:
        built(name)
    root = tmp_path_factory.mktemp("lab") / "work"
    container = f"jaxgrade-lab-{uuid.uuid4().hex[:8]}"
    run(["bash", str(ROOT / "docker" / "lab.sh"), "students", str(PORT), container],
        env={**os.environ, "LAB_ROOT": str(root)})
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            yield root, browser
            browser.close()
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)


@pytest.mark.parametrize("name", paths.NAMES)
def test_a_student_in_the_browser(lab, name, tmp_path):
    root, browser = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    t0 = time.monotonic()
    shipped = catalogue.submission(name, None).cells
    answer = next(i for i, c in enumerate(shipped) if catalogue.ANSWER_CELL_TAG in c.metadata.get("tags", []))
    export = next(i for i, c in enumerate(shipped) if "grader.export(" in c.source)
    first_check = next(i for i, c in enumerate(shipped) if "grader.check(" in c.source)
    nb = LabNotebook(page, f"http://127.0.0.1:{PORT}", f"{name}/{name}.ipynb")
    before = set(root.joinpath(name).glob("*.zip"))

    wrong = catalogue.parse(name, paths.solutions(name) / f"{WRONG[name]}.py")
    nb.type_into(answer, wrong.typed)
    nb.run_all(restart=False)                           # the kernel is fresh
    checks = "\n".join(nb.outputs_of("grader.check("))
    nb.screenshot(first_check, SHOTS / f"{name}-wrong.png")
    assert wrong.messages[0] in checks, checks[-3000:]
    assert "Read section 5." in checks, checks[-3000:]         # where to read, after the sentence
    if name != "pure_callback_doubler":                         # its wrong answer has no callback at all
        assert COUNTEREXAMPLE.search(checks), checks[-3000:]
    assert REFUSAL.split(":")[0] in nb.output(export), nb.output(export)   # not saved: refused
    assert set(root.joinpath(name).glob("*.zip")) == before

    reference = catalogue.parse(name, paths.solutions(name) / "reference.py")
    nb.type_into(answer, reference.typed)
    nb.run_all(restart=True)
    checks = nb.outputs_of("grader.check(")
    nb.screenshot(first_check, SHOTS / f"{name}-reference.png")
    assert checks and all("passed" in c for c in checks), "\n".join(checks)[-3000:]
    nb.save()
    nb.run_cell(export)
    subs = tmp_path / "subs"
    subs.mkdir()
    nb.download(export, subs / "student.zip")
    browser_s = time.monotonic() - t0
    (row,) = grade.grade_all(name, subs, tmp_path / "out", CONFIG, log=lambda *_: None)
    assert row.status == "Completed" and sum(row.scores.values()) == reference.score, (row.status, row.scores)
    page.close()
    print(f"\n{name}: browser {browser_s:.0f} s, grading {time.monotonic() - t0 - browser_s:.0f} s")
