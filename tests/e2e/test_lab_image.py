"""The students' image. Their path itself (type an answer, check, save, export, grade the
zip) is tests/e2e/test_browser.py, in a real browser, for all five assignments, and
tests/e2e/test_pip_route.py, without Docker's lab image."""
from tests.e2e.conftest import IMAGE, LAB_IMAGE, ROOT, run


def test_the_lab_image_is_the_grading_image_plus_jupyterlab():
    """make lab serves JupyterLab, and a JupyterHub can spawn the image (jupyterhub-singleuser);
    the grading image does without them."""
    lab = run(["docker", "run", "--rm", "--network", "none", LAB_IMAGE, "jupyter", "lab", "--version"])
    assert lab.stdout.strip().split(".")[0] == "4"
    hub = run(["docker", "run", "--rm", "--network", "none", LAB_IMAGE, "jupyterhub-singleuser", "--version"])
    pinned = next(l.split("==")[1] for l in (ROOT / "docker" / "lab-requirements.lock").read_text().splitlines()
                  if l.startswith("jupyterhub=="))
    assert hub.stdout.strip() == pinned, hub.stdout
    probe = "import importlib.util as u; print(u.find_spec('jupyterlab') is None, u.find_spec('autograder') is not None)"
    graded = run(["docker", "run", "--rm", "--network", "none", IMAGE, "python", "-c", probe])
    assert graded.stdout.split() == ["True", "True"]
