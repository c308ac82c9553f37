"""End-to-end tests run on the host (make test runs them with the host venv): they drive
Docker, Otter and the grading image the way instructors, students and Gradescope do."""
import subprocess
from pathlib import Path

import pytest

import dataclasses

from autograder.shared import paths, catalogue, config as settings

ROOT = Path(__file__).resolve().parents[2]
CONFIG = settings.load()
IMAGE = CONFIG.image
LAB_IMAGE = CONFIG.lab_image


def config_with(**containers) -> settings.Config:
    """otter_config.json with some `containers` keys changed (a test's shorter timeout)."""
    return dataclasses.replace(CONFIG, containers=dataclasses.replace(CONFIG.containers, **containers))


def run(cmd, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="session")
def built():
    """Make sure an assignment's dist/ exists (make test has built them already)."""
    def ensure(name: str) -> Path:
        if not paths.autograder_zip(name).exists():
            run(["make", "-C", str(ROOT), f"dist/{name}/.built"])
        return paths.autograder_zip(name)
    return ensure


def write_submission(assignment: str, answer: str, path: Path) -> Path:
    """The shipped student notebook with the catalogue answer `answer` in its answer cell."""
    code = (paths.solutions(assignment) / f"{answer}.py").read_text()
    return catalogue.write_submission(assignment, code, path)
