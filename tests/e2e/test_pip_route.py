"""Students without Docker: make wheel's package installs with one `pip install
"<wheel>[student]"` into a fresh venv of a plain Debian 13 container (Debian's Python 3.13
and g++, not the grading image), where silu_ffi's notebook with the reference answer (C++
compiled by the kernel build helper there) passes grader.check and exports a zip that
make grade's path grades in full."""
import json

from autograder.host import grade
from autograder.shared import catalogue, paths
from tests.e2e.conftest import CONFIG, ROOT, run, write_submission

NAME = "silu_ffi"
RUN_NOTEBOOK = f"""
import nbformat, nbclient
nb = nbformat.read("{NAME}.ipynb", as_version=4)
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={{"metadata": {{"path": "."}}}}).execute()
nbformat.write(nb, "executed.ipynb")
"""


def test_one_pip_install_then_check_and_export(built, tmp_path):
    built(NAME)
    run(["make", "-C", str(ROOT), "wheel"], timeout=600)
    (wheel,) = sorted((ROOT / "dist" / "wheel").glob("jax_interop_grader-*.whl"))
    work = tmp_path / "work"
    work.mkdir()
    write_submission(NAME, "reference", work / f"{NAME}.ipynb")
    ca = run(["bash", str(ROOT / "docker" / "ca-bundle.sh")]).stdout.strip()
    cert = ["-v", f"{ca}:/ca.crt:ro", "-e", "PIP_CERT=/ca.crt"] if ca else []
    script = (
        "set -e; apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
        "--no-install-recommends python3 python3-venv g++ >/dev/null; python3 -m venv /venv; "
        f"/venv/bin/pip install -q --disable-pip-version-check '/wheel/{wheel.name}[student]'; "
        f"cd /work && /venv/bin/python -c '{RUN_NOTEBOOK}'")
    run(["docker", "run", "--rm", *cert, "-v", f"{wheel.parent}:/wheel:ro", "-v", f"{work}:/work",
         "debian:trixie-slim", "bash", "-c", script], timeout=1500)

    executed = json.loads((work / "executed.ipynb").read_text())
    checks = [json.dumps(c.get("outputs", [])) for c in executed["cells"]
              if c["cell_type"] == "code" and "grader.check(" in "".join(c["source"])]
    assert checks and all("passed" in c for c in checks), checks
    (export,) = sorted(work.glob(f"{NAME}_*.zip"))
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "student.zip").write_bytes(export.read_bytes())
    (row,) = grade.grade_all(NAME, subs, tmp_path / "out", CONFIG, log=lambda *_: None)
    reference = catalogue.parse(NAME, paths.solutions(NAME) / "reference.py")
    assert row.status == "Completed" and sum(row.scores.values()) == reference.score, (row.status, row.scores)
