"""The top-level otter_config.json: validated on load, merged into the zips, obeyed."""
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.shared import config as settings

ROOT = Path(__file__).resolve().parents[1]
DATA = json.loads((ROOT / "otter_config.json").read_text())


def test_the_repositorys_file_is_valid():
    config = settings.read(ROOT / "otter_config.json")
    assert config.limits.question_s > 0 and config.containers.parallel >= 1 and config.image


@pytest.mark.parametrize("change, sentence", [
    (lambda d: d["limits"].update(qestion_s=5), "limits has the unknown key 'qestion_s'"),
    (lambda d: d["limits"].update(question_s="90"), "limits.question_s must be a number > 0, not '90'"),
    (lambda d: d["limits"].pop("processes"), "limits lacks the key 'processes'"),
    (lambda d: d["containers"].update(memory=768), "containers.memory must be a non-empty string"),
    (lambda d: d["containers"].update(parallel=1.5), "containers.parallel must be a whole number"),
    (lambda d: d["otter"].update(shw_hidden=True), "Unexpected key found in config: 'shw_hidden'"),
    (lambda d: d["otter"].update(show_hidden="yes"), "otter.show_hidden must be a bool"),
    (lambda d: d["validate"]["attack_limits"].update(total_s=1), "validate.attack_limits has the unknown key 'total_s'"),
    (lambda d: d.update(limit={}), "has the unknown key 'limit'"),
    (lambda d: d["similarity"].update(threshold=60), "similarity.threshold is a share of the code, at most 1"),
    (lambda d: d["similarity"].update(pairs="yes"), "similarity.pairs must be true or false"),
    (lambda d: d["similarity"].update(noise_tokens=30, guarantee_tokens=25),
     "similarity.noise_tokens must be at least 1 and at most guarantee_tokens"),
    (lambda d: d["similarity"]["references"].update(notes=3), "similarity.references['notes'] must be a file's path"),
])
def test_a_bad_file_is_refused_in_one_sentence(tmp_path, change, sentence):
    data = copy.deepcopy(DATA)
    change(data)
    (tmp_path / "otter_config.json").write_text(json.dumps(data))
    with pytest.raises(settings.ConfigError) as e:
        settings.read(tmp_path / "otter_config.json")
    assert sentence in str(e.value) and str(e.value).count("\n") == 0


def test_an_assignment_overrides_a_key_of_the_shared_settings():
    config = settings.parse(DATA)
    merged = settings.zip_config(config, {"assignment_name": "silu_ffi", "lang": "python", "show_hidden": True})
    assert merged["show_hidden"] is True and merged["assignment_name"] == "silu_ffi"
    assert merged["force_public_test_summary"] is DATA["otter"]["force_public_test_summary"]
    limits = settings.zip_limits(config, {"question_s": 120})
    assert limits["question_s"] == 120 and limits["notebook_s"] == DATA["limits"]["notebook_s"]
    with pytest.raises(settings.ConfigError, match="limits has the unknown key 'questions'"):
        settings.zip_limits(config, {"questions": 1})


def test_otters_own_image_build_keeps_only_otters_keys():
    """Why the limits travel in files/limits.json: Otter's grading-image build (otter grade, make
    grade) rewrites otter_config.json through AutograderConfig, dropping other keys."""
    from autograder.shared.otter_classes import AutograderConfig
    kept = AutograderConfig({"lang": "python", "limits": {"question_s": 1}}).get_user_config()
    assert "limits" not in kept


# ---- changing a limit in the file changes grading (the real runner, as root) ----------

TESTS = '''from otter.test_files import test_case

OK_FORMAT = False

name = "q"
points = None

@test_case(points=1, hidden=False)
def test_answer(env):
    from autograder.shared import checks, probe
    ask = probe.connect(env)
    checks.expect(ask.run("answer") == 42, "answer is not 42.")
'''


def _grade(tmp_path: Path, **limits) -> dict:
    """The runner on a one-cell notebook (sleeps 3 s, sets answer = 42) with `limits` changed
    in the zip's otter_config.json: its score and notes."""
    root = tmp_path / "autograder"
    shutil.rmtree(root, ignore_errors=True)
    (root / "source" / "tests").mkdir(parents=True)
    (root / "submission").mkdir()
    config = settings.parse(DATA)
    zip_config = settings.zip_config(config, {"assignment_name": "q", "lang": "python"})
    (root / "source" / "otter_config.json").write_text(json.dumps(zip_config))
    (root / "source" / "files").mkdir()
    (root / "source" / settings.LIMITS_FILE).write_text(json.dumps(settings.zip_limits(config, limits)))
    (root / "source" / "tests" / "q.py").write_text(TESTS)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import time\ntime.sleep(3)\nanswer = 42")])
    nbformat.write(nb, root / "submission" / "q.ipynb")
    subprocess.run([sys.executable, "-I", "-m", "autograder.runner", str(root), "student"], check=True,
                   capture_output=True, cwd="/", env={**os.environ, "PYTHONPATH": str(ROOT)})
    results = json.loads((root / "results" / "results.json").read_text())
    return {"score": next(t["score"] for t in results["tests"] if t["name"] == "q"),
            "output": results.get("output", "")}


@pytest.mark.skipif(os.geteuid() != 0, reason="the runner drops privileges: run in the image (make test)")
@pytest.mark.slow
def test_changing_a_limit_changes_grading(tmp_path):
    generous = _grade(tmp_path, notebook_s=60)
    assert generous["score"] == 1
    tight = _grade(tmp_path, notebook_s=1)
    assert tight["score"] == 0
    assert "did not finish within 1 s" in tight["output"]
