"""Instructors' documented command: `otter grade` with the project's zip and image, with
no network, grades notebooks and writes Otter's CSV."""
import csv
import os
import sys
from pathlib import Path

from autograder.shared import catalogue
from tests.e2e.conftest import IMAGE, ROOT, run, write_submission


def test_otter_grade_uses_the_project_zip_and_image(built, tmp_path):
    """Also grades an attack that leaves pickle payloads wherever results.pkl might be read:
    `otter grade` dill-loads results.pkl on this host, and it must be the runner's. (In
    ffi_lowering, whose notebooks may import os and pickle: the readable subset would not
    run the attack in the callback assignments.)"""
    zip_path = built("ffi_lowering")
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    out.mkdir()
    write_submission("ffi_lowering", "reference", subs / "ref.ipynb")
    write_submission("ffi_lowering", "wrong_lower_fun_jnp", subs / "jnp.ipynb")
    attack = (ROOT / "solutions" / "adversarial" / "dill_results_pkl.py").read_text()
    catalogue.write_submission("ffi_lowering", attack, subs / "dill.ipynb")
    markers = [Path(f"/tmp/pwned-{os.getuid()}"), Path("/tmp/pwned-0")]
    for m in markers:
        m.unlink(missing_ok=True)
    otter = Path(sys.executable).with_name("otter")
    run([str(otter), "grade", "-n", "ffi_lowering", "-a", str(zip_path), "--image", IMAGE,
         "--no-network", "--timeout", "600", "--containers", "2", "-o", str(out), str(subs)], timeout=1200)
    rows = list(csv.DictReader((out / "final_grades.csv").open()))
    got = {r["file"]: float(r["total_points_earned"]) for r in rows if r["file"] != "points-per-question"}
    wrong = catalogue.parse("ffi_lowering", ROOT / "solutions" / "ffi_lowering" / "wrong_lower_fun_jnp.py")
    assert not any(m.exists() for m in markers)
    assert got == {"ref.ipynb": 10.0, "jnp.ipynb": wrong.score, "dill.ipynb": 0.0}
    assert {r["grading_status"] for r in rows if r["file"] != "points-per-question"} == {"Completed"}
