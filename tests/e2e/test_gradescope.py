"""Plays Gradescope's part from a fresh base container, not the project image: unpack the
autograder zip into /autograder/source, run setup.sh, place a submission, run
/autograder/run_autograder, and check results.json against Gradescope's specification."""
import json
import os
import subprocess

import pytest

from tests.e2e.conftest import write_submission

BASE = os.environ.get("GRADESCOPE_BASE", "debian:trixie-slim")   # Gradescope: Ubuntu 24.04
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}

# What Gradescope's own image build does before and after setup.sh (curl, unzip,
# dos2unix, then the zip into /autograder/source).
SCRIPT = r"""
set -e
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl unzip dos2unix >/dev/null
mkdir -p /autograder/source /autograder/submission /autograder/results
unzip -q -o /in/autograder.zip -d /autograder/source
cp /autograder/source/run_autograder /autograder/run_autograder
dos2unix -q /autograder/run_autograder /autograder/source/setup.sh
chmod +x /autograder/run_autograder
cd /autograder/source && bash setup.sh > /tmp/setup.log 2>&1 || { tail -30 /tmp/setup.log; exit 1; }
cp /in/submission.ipynb /autograder/submission/
/autograder/run_autograder > /tmp/run.log 2>&1 || { tail -30 /tmp/run.log; exit 1; }
cat /autograder/results/results.json
"""


def test_fresh_base_container_grades_like_gradescope(built, tmp_path):
    """Does the zip set itself up on a bare Debian 13 base and return a valid results.json?"""
    zip_path = built("reduce_sum_rules")
    (tmp_path / "autograder.zip").write_bytes(zip_path.read_bytes())
    write_submission("reduce_sum_rules", "wrong_no_batching", tmp_path / "submission.ipynb")
    ca = subprocess.run(["bash", "docker/ca-bundle.sh"], capture_output=True, text=True).stdout.strip()
    mounts = ["-v", f"{tmp_path}:/in:ro"] + (["-v", f"{ca}:/ca.crt:ro", "-e", "PIP_CERT=/ca.crt"] if ca else [])
    proc = subprocess.run(["docker", "run", "--rm", *mounts, BASE, "bash", "-c", SCRIPT],
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(proc.stdout[proc.stdout.index("{"):])

    assert set(results) <= {"score", "tests", "output", "visibility", "stdout_visibility",
                            "extra_data", "execution_time", "leaderboard"}
    for t in results["tests"]:
        assert isinstance(t["name"], str) and isinstance(t.get("output", ""), str)
        assert t.get("visibility", "visible") in VISIBILITIES
        if "score" in t:
            assert isinstance(t["score"], (int, float)) and isinstance(t["max_score"], (int, float))
    scored = [t for t in results["tests"] if "score" in t]
    assert [t["name"] for t in scored] == ["reduce_sum_rules"]
    assert sum(t["score"] for t in scored) == 6 and scored[0]["max_score"] == 10
    # otter_config.json leaves show_hidden off: the per-question results (hidden cases
    # included) are hidden from students; the public summary is visible.
    assert scored[0]["visibility"] == "hidden"
    public = [t for t in results["tests"] if t["name"] == "Public Tests"]
    assert public and public[0]["visibility"] == "visible"
    assert "has no batching rule registered" in public[0]["output"]
