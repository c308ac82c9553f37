"""make grade --backend swarm on a real two-node swarm on this machine (the manager is this
daemon, the worker a second dockerd in its own namespaces: autograder.host.local_swarm),
with the image served by Debian's docker-registry: a batch spreads over both nodes, the
worker is killed in the middle of it and every submission still gets one row with the
catalogue's score; a task that cannot start is retried, then recorded with its reason;
the grading network has no way out; nothing of a batch is left behind."""
import threading
import time

import pytest
from python_on_whales import docker

from autograder.host import grade, swarm
from autograder.host.local_swarm import LocalSwarm, REGISTRY
from autograder.shared import paths, catalogue
from tests.e2e.conftest import CONFIG, write_submission

import dataclasses

NAME = "pure_callback_doubler"
ANSWERS = ["reference", "wrong_float64_result", "wrong_jnp_no_callback", "alt_np_multiply",
           "reference", "wrong_doubles_outside", "cheat_named_helper", "alt_arr_plus_arr",
           "reference", "wrong_io_callback"]


def cluster_config(**cluster):
    return dataclasses.replace(CONFIG, cluster=dataclasses.replace(
        CONFIG.cluster, **{"registry": REGISTRY, **cluster}))


@pytest.fixture(scope="module")
def two_nodes(built):
    built(NAME)
    with LocalSwarm(workers=1) as s:
        s.nodes_ready()
        yield s


def leftovers() -> list[str]:
    """Anything a batch made that is still there."""
    return ([f"service {s.spec.name}" for s in docker.service.list(filters=[("label", swarm.LABEL)])]
            + [f"config {c.spec.name}" for c in docker.config.list(filters={"label": swarm.LABEL})]
            + [line for line in swarm.cli("secret", "ls", "--filter", f"label={swarm.LABEL}",
                                          "--format", "secret {{.Name}}").splitlines()]
            + [line for line in swarm.cli("network", "ls", "--filter", f"label={swarm.LABEL}",
                                          "--format", "network {{.Name}}").splitlines()])


PROBE = """
import socket, sys
for host, port in [(h, int(p)) for h, p in (a.rsplit(':', 1) for a in sys.argv[1:])]:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print('REACHED', host, port)
    except OSError as exc:
        print('BLOCKED', host, port, exc)
"""


def probe(network: str, node: str, targets: list[str]) -> str:
    """What a task on `network`, on `node`, can connect to."""
    name = f"jaxgrade-probe-{node[:6]}"
    image = f"{REGISTRY}/probe:1"
    swarm.cli("service", "create", "--detach", "--name", name, "--mode", "replicated-job",
              "--restart-condition", "none", "--constraint", f"node.id=={node}", "--network", network,
              "--label", f"{swarm.LABEL}=probe", image, "python3", "-c", PROBE, *targets)
    try:
        for _ in range(120):
            tasks = docker.service.ps(name)
            if tasks and tasks[0].status.state in ("complete", "failed", "rejected"):
                break
            time.sleep(1)
        return docker.service.logs(name, raw=True)
    finally:
        docker.service.remove(name)


def test_the_grading_network_has_no_way_out(two_nodes):
    """From each node, a task on a batch's network finds no route to a port the manager
    publishes (at its swarm address or its docker0 gateway), the registry, the swarm's own
    port or the outside, and no name server; the same probe on an ordinary overlay network,
    on the manager, does reach the published port (so the probe can see one). The port is
    published in host mode: the routing mesh needs the kernel's IPVS, which these machines
    lack."""
    image = f"{REGISTRY}/probe:1"
    docker.image.tag(CONFIG.image, image)
    docker.image.push(image, quiet=True)
    batch = swarm.Batch(CONFIG.image, CONFIG.containers, cluster_config().cluster)
    batch.ref = image
    web = "jaxgrade-probe-web"
    manager = docker.node.inspect("self").id
    try:
        batch.prepare()
        swarm.cli("network", "create", "--driver", "overlay", "--label", f"{swarm.LABEL}=probe", "jaxgrade-open")
        swarm.cli("service", "create", "--detach", "--name", web, "--publish", "mode=host,published=18080,target=8000",
                  "--constraint", "node.role==manager", "--label", f"{swarm.LABEL}=probe",
                  image, "python3", "-m", "http.server", "8000")
        for _ in range(30):
            if "REACHED" in probe("jaxgrade-open", manager, ["10.231.0.1:18080"]):
                break
            time.sleep(2)
        else:
            pytest.fail("the probe on an open overlay network never reached the published port")
        targets = ["10.231.0.1:18080", "172.17.0.1:18080", REGISTRY, "10.231.0.1:2377", "1.1.1.1:53"]
        for node in docker.node.list():
            seen = probe(batch.network, node.id, targets + ["deb.debian.org:80"])
            where = node.description.hostname
            assert "REACHED" not in seen, (where, seen)
            for target in targets:
                assert f"BLOCKED {target.replace(':', ' ')} [Errno 101] Network is unreachable" in seen, (where, seen)
            assert "BLOCKED deb.debian.org 80 [Errno -3]" in seen, (where, seen)   # no name server either
    finally:
        for what in (["service", "rm", web], ["network", "rm", "jaxgrade-open"]):
            try:
                swarm.cli(*what)
            except Exception:
                pass
        batch.cleanup()
    time.sleep(2)
    assert leftovers() == []


def test_a_killed_node_loses_no_submission(two_nodes, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for i, answer in enumerate(ANSWERS):
        write_submission(NAME, answer, subs / f"{i:02d}_{answer}.ipynb")
    (subs / "zz_notes.txt").write_text("not a notebook")
    lines: list[str] = []
    killed = threading.Event()

    def log(line: str) -> None:
        lines.append(line)
        # kill the worker once it has finished one grading (the batch used both nodes)
        # and holds others: those must be retried on the manager
        if not killed.is_set() and ", swarm-worker-1)" in line:
            killed.set()
            two_nodes.kill_worker(0)

    t0 = time.monotonic()
    rows = grade.grade_all(NAME, subs, tmp_path / "out", cluster_config(), log=log, backend="swarm")
    wall = time.monotonic() - t0
    text = "\n".join(lines)
    assert killed.is_set(), f"no grading finished on the worker:\n{text}"
    assert "went down while grading it" in text, text
    assert [r.file for r in rows] == sorted(p.name for p in subs.iterdir())
    for r in rows[:-1]:
        expected = catalogue.parse(NAME, paths.solutions(NAME) / f"{r.file[3:-6]}.py")
        assert r.status == "Completed", (r.file, r.status, text)
        assert sum(r.scores.values()) == expected.score, (r.file, r.scores, text)
    assert "not a notebook" in rows[-1].status
    assert (tmp_path / "out" / "final_grades.csv").read_text().count("\n") == len(ANSWERS) + 3
    assert leftovers() == []
    print(f"\nswarm batch of {len(ANSWERS)} with the worker killed: {wall:.0f} s")


def test_a_task_that_cannot_start_is_recorded_with_its_reason(two_nodes, tmp_path, monkeypatch):
    """An image no node can pull: each attempt's task is rejected; after `attempts` the row
    says why, and the batch ends (Swarm alone would leave the job incomplete forever)."""
    subs = tmp_path / "subs"
    subs.mkdir()
    write_submission(NAME, "reference", subs / "a.ipynb")
    missing = f"{REGISTRY}/nothing@sha256:{'0' * 64}"
    monkeypatch.setattr(swarm, "push", lambda image, registry: missing)
    (row,) = grade.grade_all(NAME, subs, tmp_path / "out", cluster_config(attempts=2, start_timeout_s=60),
                             log=lambda *_: None, backend="swarm")
    assert row.status.startswith("not graded after 2 attempts: its task on "), row.status
    assert "rejected" in row.status or "did not start" in row.status, row.status
    assert leftovers() == []
