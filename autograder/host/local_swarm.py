"""A two-node Docker Swarm on one machine, for tests/e2e/test_swarm.py and make bench (root).

    with LocalSwarm(workers=1) as swarm: ...   # swarm.registry, swarm.kill_worker(0)

The manager is this machine's daemon; each worker is a second dockerd with its own data
root, exec root and socket, in its own network namespace (a veth pair: the manager is
below), PID namespace (killing its first process kills
the whole node, its containers included, like a power cut) and hostname, joined as a
worker. The registry both pull from (docker/registry.sh) serves on 10.231.0.1:5000.
Worker i's veth pair is 10.231.i.1 (this machine) <-> 10.231.i.2; the swarm and the
registry listen on 10.231.0.1 (the first pair's end here), which every worker reaches.
Leaving (or an error on the way in) removes all of it; a machine already in a swarm is
refused, since leaving would take the swarm down with it.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from python_on_whales import DockerClient, docker

from autograder.shared import paths

MANAGER_IP = "10.231.0.1"
REGISTRY = f"{MANAGER_IP}:5000"
REGISTRY_DIR = Path("/var/lib/jax-interop-test-registry")


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=check, capture_output=True, text=True)


class Worker:
    def __init__(self, i: int):
        self.i, self.name = i, f"swarm-worker-{i + 1}"
        self.netns, self.ip = f"jaxgrade-w{i}", f"10.231.{i}.2"
        self.root, self.run = Path(f"/var/lib/docker-jaxgrade-w{i}"), Path(f"/run/docker-jaxgrade-w{i}")
        self.socket = f"unix://{self.run}.sock"
        self.host = f"jgw{i}"   # the host end of the veth pair
        self.process: subprocess.Popen | None = None
        self.docker = DockerClient(host=self.socket)

    def start(self) -> None:
        sh("ip", "netns", "add", self.netns)
        sh("ip", "link", "add", self.host, "type", "veth", "peer", "name", "eth0", "netns", self.netns)
        sh("ip", "addr", "add", f"10.231.{self.i}.1/24", "dev", self.host)
        sh("ip", "link", "set", self.host, "up")
        inside = ["ip", "netns", "exec", self.netns]
        sh(*inside, "ip", "addr", "add", f"{self.ip}/24", "dev", "eth0")
        sh(*inside, "ip", "link", "set", "eth0", "up")
        sh(*inside, "ip", "link", "set", "lo", "up")
        sh(*inside, "ip", "route", "add", "default", "via", f"10.231.{self.i}.1")
        self.root.mkdir(parents=True, exist_ok=True)
        self.run.mkdir(parents=True, exist_ok=True)
        # nsenter, not `ip netns exec`: that one remounts /sys, and dockerd loses the cgroups.
        log = open(self.run / "dockerd.log", "w")
        self.process = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--kill-child", "--mount", "--uts", "--mount-proc", "sh", "-c",
             f"hostname {self.name} && exec nsenter --net=/var/run/netns/{self.netns} dockerd "
             f"--data-root {self.root} --exec-root {self.run} --pidfile {self.run}/dockerd.pid "
             f"-H {self.socket} --iptables=false --storage-driver overlay2"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(60):
            if sh("docker", "-H", self.socket, "info", check=False).returncode == 0:
                return
            time.sleep(1)
        raise RuntimeError(f"{self.name}'s dockerd did not start:\n{(self.run / 'dockerd.log').read_text()[-3000:]}")

    def kill(self) -> None:
        """A power cut: SIGKILL to the node's first process kills every process of its PID
        namespace (dockerd, containerd, the shims, the containers)."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)   # unshare and the node's init (dockerd)
            self.process.wait()

    def remove(self) -> None:
        self.kill()
        time.sleep(1)
        sh("ip", "link", "del", self.host, check=False)
        sh("ip", "netns", "del", self.netns, check=False)
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.run, ignore_errors=True)
        Path(f"{self.run}.sock").unlink(missing_ok=True)


class LocalSwarm:
    def __init__(self, workers: int = 1):
        self.workers = [Worker(i) for i in range(workers)]
        self.registry = REGISTRY

    def __enter__(self) -> "LocalSwarm":
        if docker.info().swarm.local_node_state != "inactive":
            raise RuntimeError("this machine's Docker is already in a swarm; the two-node test makes "
                               "and leaves its own (docker swarm leave --force first)")
        try:
            for w in self.workers:
                w.remove()   # what a run that was killed may have left
                w.start()
            docker.swarm.init(advertise_address=MANAGER_IP)
            token = docker.swarm.join_token("worker")
            for w in self.workers:
                w.docker.swarm.join(f"{MANAGER_IP}:2377", token=token)
            sh("bash", str(paths.repo_root() / "docker" / "registry.sh"), "start", REGISTRY,
               str(REGISTRY_DIR))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for w in self.workers:
            w.remove()
        sh("docker", "swarm", "leave", "--force", check=False)
        sh("bash", str(paths.repo_root() / "docker" / "registry.sh"), "stop", str(REGISTRY_DIR),
           check=False)
        shutil.rmtree(REGISTRY_DIR, ignore_errors=True)
        shutil.rmtree(f"/etc/docker/certs.d/{REGISTRY}", ignore_errors=True)

    def kill_worker(self, i: int = 0) -> None:
        self.workers[i].kill()

    def nodes_ready(self, timeout: float = 60) -> None:
        """Wait until every node of the swarm is ready."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            nodes = docker.node.list()
            if len(nodes) == 1 + len(self.workers) and all(n.status.state == "ready" for n in nodes):
                return
            time.sleep(1)
        raise RuntimeError("the swarm's nodes did not become ready")
