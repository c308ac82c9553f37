"""A course's JupyterHub for real (make hub, docker/hub/): two students log in through the
hub's page in Chromium; each gets a lab container of their own with the five notebooks;
alice answers silu_ffi wrongly and bob correctly, each runs grader.check, saves and
exports, and both zips grade through make grade's path with the catalogue's scores. alice
cannot read bob's files, reach bob's server through the hub's URLs or directly, or use the
hub's API with her token beyond her own server; a server stopped and started again finds
its work; make hub-stop leaves no container, network, volume or proxy process behind.
Prints the start time of a student's server and the memory of an idle and a working lab."""
from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest
from playwright.sync_api import sync_playwright

from autograder.host import grade
from autograder.shared import paths, catalogue
from tests.e2e.conftest import CONFIG, ROOT, run
from tests.e2e.lab_page import CHROMIUM, LabNotebook

PREFIX = f"jaxgrade-hubtest-{uuid.uuid4().hex[:6]}"
PORT = 18000
HUB = f"http://127.0.0.1:{PORT}"
PASSWORD = "try-out-" + uuid.uuid4().hex[:8]
NAME = "silu_ffi"
ANSWERS = {"alice": "wrong_backward_formula", "bob": "reference"}
SHOTS = ROOT / "dist" / "screenshots"
ENV = {**os.environ, "HUB_PREFIX": PREFIX, "HUB_PORT": str(PORT), "HUB_PASSWORD": PASSWORD}
MEASURED: dict[str, str] = {}


def api(method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict | str]:
    request = urllib.request.Request(f"{HUB}{path}", method=method, headers={"Authorization": f"token {token}"},
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            text = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        text, status = e.read().decode(), e.code
    try:
        return status, json.loads(text) if text else {}
    except ValueError:
        return status, text


def left_behind() -> list[str]:
    """Every container, network and volume of this hub, and any proxy process."""
    out = []
    for kind in (["ps", "-a"], ["network", "ls"], ["volume", "ls"]):
        names = run(["docker", *kind, "--format", "{{.Names}}" if kind[0] == "ps" else "{{.Name}}"]).stdout.split()
        out += [f"{kind[0]}: {n}" for n in names if n.startswith(PREFIX)]
    proxies = subprocess.run(["pgrep", "-af", "configurable-http-proxy"], capture_output=True, text=True).stdout
    return out + [f"process: {p}" for p in proxies.splitlines() if p.strip()]


def memory_mb(container: str) -> float:
    usage = run(["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}", container]).stdout.split("/")[0].strip()
    number, unit = float(usage[:-3]), usage[-3:]
    return number * {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[unit]


@pytest.fixture(scope="module")
def hub(built):
    for name in paths.NAMES:
        built(name)
    assert not left_behind(), left_behind()
    run(["make", "-C", str(ROOT), "hub"], env=ENV)
    try:
        yield (ROOT / "dist" / "hub" / "admin-token").read_text().strip()
    finally:
        subprocess.run(["make", "-C", str(ROOT), "hub-stop", "VOLUMES=1"], env=ENV, capture_output=True)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def log_in(browser, student: str):
    """A browser of the student's own (own cookies), logged in; returns the page and the
    seconds from the login click to a lab with the notebooks (the server's start)."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True).new_page()
    page.goto(f"{HUB}/hub/login")
    page.fill("#username_input", student)
    page.fill("#password_input", PASSWORD)
    t0 = time.monotonic()
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{student}/lab**", timeout=180_000)
    page.wait_for_selector(f".jp-DirListing-item[title*='{NAME}']", timeout=180_000)
    return page, time.monotonic() - t0


def test_two_students_work_check_export_and_grade(hub, browser, tmp_path):
    shipped = catalogue.submission(NAME, None).cells
    answer = next(i for i, c in enumerate(shipped) if catalogue.ANSWER_CELL_TAG in c.metadata.get("tags", []))
    export = next(i for i, c in enumerate(shipped) if "grader.export(" in c.source)
    first_check = next(i for i, c in enumerate(shipped) if "grader.check(" in c.source)
    SHOTS.mkdir(parents=True, exist_ok=True)
    subs = tmp_path / "subs"
    subs.mkdir()
    for student, answer_name in ANSWERS.items():
        page, start_s = log_in(browser, student)
        MEASURED[f"{student}'s server started (login to lab)"] = f"{start_s:.1f} s"
        MEASURED[f"{student}'s lab, idle"] = f"{memory_mb(f'{PREFIX}-{student}'):.0f} MB"
        nb = LabNotebook(page, f"{HUB}/user/{student}", f"{NAME}/{NAME}.ipynb")
        chosen = catalogue.parse(NAME, paths.solutions(NAME) / f"{answer_name}.py")
        nb.type_into(answer, chosen.typed)
        nb.run_all(restart=False)
        checks = "\n".join(nb.outputs_of("grader.check("))
        nb.screenshot(first_check, SHOTS / f"hub-{student}.png")
        if chosen.messages:
            assert chosen.messages[0] in checks, checks[-3000:]
        else:
            assert "passed" in checks and "failed" not in checks.lower(), checks[-3000:]
        MEASURED[f"{student}'s lab, after running silu_ffi"] = f"{memory_mb(f'{PREFIX}-{student}'):.0f} MB"
        nb.save()
        nb.run_cell(export)
        nb.download(export, subs / f"{student}.zip")
        page.context.close()
    print("\n" + "\n".join(f"  {k}: {v}" for k, v in MEASURED.items()))
    rows = grade.grade_all(NAME, subs, tmp_path / "out", CONFIG, log=lambda *_: None)   # both zips, as a class
    for row in rows:
        expected = catalogue.parse(NAME, paths.solutions(NAME) / f"{ANSWERS[row.file[:-4]]}.py").score
        assert row.status == "Completed" and sum(row.scores.values()) == expected, (row.file, row.status, row.scores)
    assert sorted(r.file for r in rows) == ["alice.zip", "bob.zip"]


def test_a_student_reaches_only_their_own_server(hub):
    admin = hub
    status, alice = api("POST", "/hub/api/users/alice/tokens", admin, {"note": "test", "expires_in": 600})
    assert status == 201, alice
    token = alice["token"]
    # her own server, with her token: yes
    assert api("GET", "/user/alice/api/contents/silu_ffi", token)[0] == 200
    # bob's (running: his server itself refuses her), through the hub's URLs: no
    assert api("GET", "/hub/api/users/bob", hub)[1]["servers"][""]["ready"]
    assert api("GET", "/user/bob/api/contents/silu_ffi", token)[0] == 403
    assert api("GET", "/user/bob/files/silu_ffi/silu_ffi.ipynb", token)[0] == 403
    # the hub's API beyond her own server: bob is not even visible to her (404), nor the list
    assert api("GET", "/hub/api/users/bob", token)[0] == 404
    assert api("POST", "/hub/api/users/bob/server", token)[0] == 404
    assert api("DELETE", "/hub/api/users/bob/server", token)[0] == 404
    assert api("POST", "/hub/api/users/bob/tokens", token, {})[0] == 403
    assert api("GET", "/hub/api/users", token)[0] == 403
    assert api("GET", "/hub/api/users/alice", token)[0] == 200
    # nor directly over the hub's network, nor through the filesystem or the engine's socket
    probe = ("import sys, urllib.request as u\n"
             f"r = u.Request('http://{PREFIX}-bob:8888/user/bob/api/contents/silu_ffi', "
             f"headers={{'Authorization': 'token {token}'}})\n"
             "try:\n    print(u.urlopen(r, timeout=20).status)\nexcept Exception as e:\n    print(getattr(e, 'code', e))\n")
    direct = run(["docker", "exec", f"{PREFIX}-alice", "python3", "-c", probe]).stdout.strip()
    assert direct == "403", direct
    mounts = json.loads(run(["docker", "inspect", "--format", "{{json .Mounts}}", f"{PREFIX}-alice"]).stdout)
    assert {m.get("Name") or m["Source"] for m in mounts} == {f"{PREFIX}-user-alice", str(ROOT / "dist" / "hub" / "course")}
    assert not any(m["Destination"] == "/var/run/docker.sock" for m in mounts)
    ls = run(["docker", "exec", f"{PREFIX}-alice", "sh", "-c", "ls /home/student/work; ls /home 2>&1; id -u"]).stdout
    assert "silu_ffi" in ls and "bob" not in ls and ls.split()[-1] == "1000"


def test_a_restarted_server_finds_the_work(hub):
    admin = hub
    t0 = time.monotonic()
    assert api("DELETE", "/hub/api/users/alice/server", admin)[0] in (202, 204)
    for _ in range(120):
        if not api("GET", "/hub/api/users/alice", admin)[1].get("servers"):
            break
        time.sleep(1)
    assert run(["docker", "ps", "-aq", "--filter", f"name=^{PREFIX}-alice$"]).stdout.strip() == ""   # container gone
    assert api("POST", "/hub/api/users/alice/server", admin)[0] in (201, 202)
    for _ in range(180):
        server = api("GET", "/hub/api/users/alice", admin)[1].get("servers", {}).get("", {})
        if server.get("ready"):
            break
        time.sleep(1)
    else:
        pytest.fail("alice's server did not start again")
    MEASURED["alice's server restarted (API)"] = f"{time.monotonic() - t0:.1f} s"
    _, token = api("POST", "/hub/api/users/alice/tokens", admin, {"expires_in": 600})
    status, saved = api("GET", f"/user/alice/api/contents/{NAME}/{NAME}.ipynb", token["token"])
    assert status == 200
    wrong = catalogue.parse(NAME, paths.solutions(NAME) / f"{ANSWERS['alice']}.py").typed
    sources = ["".join(c["source"]) for c in saved["content"]["cells"]]
    assert any(s.strip() == wrong.strip() for s in sources)          # her answer, as she saved it
    status, listing = api("GET", f"/user/alice/api/contents/{NAME}", token["token"])
    assert any(f["name"].endswith(".zip") for f in listing["content"])  # and her export
    print(f"\n  alice's server restarted (API): {MEASURED['alice' + chr(39) + 's server restarted (API)']}")


def test_hub_stop_leaves_nothing_behind(hub):
    run(["make", "-C", str(ROOT), "hub-stop"], env=ENV)   # the students' volumes stay...
    volumes = run(["docker", "volume", "ls", "--format", "{{.Name}}"]).stdout.split()
    assert f"{PREFIX}-user-alice" in volumes and f"{PREFIX}-user-bob" in volumes
    assert [x for x in left_behind() if not x.startswith("volume")] == []
    run(["make", "-C", str(ROOT), "hub-stop", "VOLUMES=1"], env=ENV)   # ...until asked
    assert left_behind() == []


def test_the_hub_runs_the_lab_locks_jupyterhub():
    """Hub and single-user server of one JupyterHub version (the lab lock's), and the proxy."""
    image = ENV.get("HUB_IMAGE", "jax-interop-hub:latest")
    pinned = next(l.split("==")[1] for l in (ROOT / "docker" / "lab-requirements.lock").read_text().splitlines()
                  if l.startswith("jupyterhub=="))
    assert run(["docker", "run", "--rm", "--network", "none", image, "jupyterhub", "--version"]).stdout.strip() == pinned
    proxy = run(["docker", "run", "--rm", "--network", "none", image, "configurable-http-proxy", "--version"])
    assert proxy.stdout.strip() == "5.3.0"
