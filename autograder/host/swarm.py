"""make grade's Swarm backend (`GRADE_ARGS="--backend swarm"`): the same grading as the local
daemon's (one fresh container per submission, otter_config.json's `containers` limits), run
as Docker Swarm jobs spread over the swarm's nodes. Run it on a manager node.

How each piece travels, with no folder shared between the nodes:
- the image: Otter's grading image is pushed to the registry of `cluster.registry` (every
  node pulls it by digest, so every node runs the very same image);
- a submission: its gzip, cut into Swarm configs (500 KB each at most), mounted root-only;
- a result: the task's log, one frame signed with a per-batch key that reaches the task as
  a root-only Swarm secret (autograder.runner.task, autograder.shared.logframes);
- the network: an internal overlay network (Swarm refuses `--network none`): no gateway, so
  no route to the outside nor to the nodes' published ports (tests/e2e/test_swarm.py).

The queue is ours, not Swarm's: each submission is one `replicated-job` service pinned to a
node with a free slot (a node runs `cluster.per_node` gradings at once, or as many as its
CPUs and memory hold), with Swarm's restarts off. Swarm leaves a job whose task failed, or
whose node went down, incomplete forever, so this loop watches every task: a task that
failed, was rejected, sat on a node that went down, never started within
`cluster.start_timeout_s`, or ended without a verified frame is removed and its submission
goes back to the queue, at most `cluster.attempts` times; then its row says why. A
grading's own outcome (a score, a timeout, out of memory) is never retried. Everything the
batch created (services, configs, secret, network) is removed at the end, whatever happens.
"""
from __future__ import annotations

import gzip
import math
import secrets
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from python_on_whales import docker
from python_on_whales.exceptions import DockerException
from python_on_whales.utils import run

from autograder.host import container
from autograder.shared import logframes, submissions
from autograder.shared.config import SEED_VARIABLE, ClusterSettings, ContainerLimits

LABEL = "jax-interop.batch"
CONFIG_BYTES = 480 * 1024          # Swarm's limit on one config is 500 KB
INCOMING = "/run/jax-interop/incoming"
KEY = "/run/secrets/grading-key"
POLL_S = 1.0
PENDING = {"new", "pending", "assigned", "accepted", "ready", "preparing", "starting"}
FAILED = {"failed", "rejected", "orphaned", "remove", "shutdown"}


def cli(*args: str) -> str:
    """The docker CLI that python-on-whales wraps, for the options it does not expose
    (service create --mode replicated-job, --config; network create --internal)."""
    return run(docker.client_config.docker_cmd + list(args))


def push(image: str, registry: str) -> str:
    """`image` pushed to `registry`; the reference by digest that every node pulls."""
    name = f"{registry}/{image.replace(':', '-').replace('/', '-')}:{docker.image.inspect(image).id[7:19]}"
    docker.image.tag(image, name)
    docker.image.push(name, quiet=True)
    digests = [d for d in docker.image.inspect(name).repo_digests if d.startswith(f"{registry}/")]
    return digests[0]


def task_command(limits: ContainerLimits, parts: str, key: str, *extra: str) -> list[str]:
    """The container's command on a cluster (Swarm here, Kubernetes in autograder.host.k8s):
    autograder.runner.task with make grade's timeout and results bound."""
    return ["/opt/venv/bin/python", "-I", "-m", "autograder.runner.task", "--parts", parts, "--key", key,
            "--timeout", f"{limits.timeout_s:g}", "--results-bytes", str(limits.results_bytes), *extra]


def cut(notebook: Path, size: int) -> list[bytes]:
    """The notebook's gzip in parts of at most `size` bytes (at least one), as the task joins
    them (autograder.runner.task.assemble)."""
    blob = gzip.compress(notebook.read_bytes(), mtime=0)
    return [blob[k:k + size] for k in range(0, len(blob), size)] or [blob]


@dataclass
class Job:
    index: int
    sub: submissions.Submission
    attempts: int = 0
    service: str | None = None
    node: str | None = None
    created: float = 0.0
    running_since: float | None = None
    configs: list[str] = field(default_factory=list)   # the attempt's Swarm configs
    reasons: list[str] = field(default_factory=list)


@dataclass
class Nodes:
    """The swarm's nodes that can take gradings now, and how many each takes at once."""
    slots: dict[str, int]     # ready and active: id -> gradings at once
    up: set[str]              # ready (a drained node's tasks go on)
    names: dict[str, str]     # id -> hostname, for progress lines

    @classmethod
    def read(cls, limits: ContainerLimits, per_node: int) -> "Nodes":
        slots, up, names = {}, set(), {}
        memory = _bytes(limits.memory)
        for node in docker.node.list():
            names[node.id] = node.description.hostname
            if node.status.state == "ready":
                up.add(node.id)
            if node.status.state != "ready" or node.spec.availability != "active":
                continue
            res = node.description.resources
            fits = min(math.floor(res.nano_cpus / 1e9 / limits.cpus), res.memory_bytes // memory)
            slots[node.id] = per_node or max(1, fits)
        return cls(slots, up, names)


def _bytes(size: str) -> int:
    units = {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30}
    return int(float(size[:-1]) * units[size[-1].lower()]) if size[-1].isalpha() else int(size)


class Batch:
    """One `make grade` batch on the swarm: prepare(), run(), and cleanup() in a finally."""

    def __init__(self, image: str, limits: ContainerLimits, cluster: ClusterSettings,
                 seed: int | None = None, log=print):
        self.image, self.limits, self.cluster, self.seed, self.log = image, limits, cluster, seed, log
        self.id = secrets.token_hex(4)
        self.label = f"{LABEL}={self.id}"     # on everything this batch makes
        self.key = secrets.token_bytes(32)
        self.network = self.secret = self.ref = None
        self.tally: dict[str, Counter] = {}
        self.spent: set[str] = set()   # configs of ended attempts: in use until their task is gone

    # -- set-up and clean-up -------------------------------------------------------------
    def prepare(self) -> None:
        self.ref = self.ref or push(self.image, self.cluster.registry)
        self.network = f"jaxgrade-{self.id}"
        cli("network", "create", "--driver", "overlay", "--internal", "--label", self.label,
            self.network)
        self.secret = f"jaxgrade-{self.id}-key"
        with tempfile.NamedTemporaryFile() as f:
            f.write(self.key)
            f.flush()
            # (python-on-whales 0.81's secret.create prints a debug line: the CLI instead)
            cli("secret", "create", "--label", self.label, self.secret, f.name)

    def cleanup(self) -> None:
        """Remove every service, config, secret and network of this batch."""
        services = docker.service.list(filters=[("label", self.label)])
        if services:
            docker.service.remove(services)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:   # configs and the network are busy until tasks are gone
            try:
                configs = docker.config.list(filters={"label": self.label})
                if configs:
                    docker.config.remove(configs)
                if self.secret:
                    cli("secret", "rm", self.secret)
                    self.secret = None
                if self.network:
                    cli("network", "rm", self.network)
                    self.network = None
                return
            except DockerException:
                time.sleep(1)

    # -- one attempt of one submission ----------------------------------------------------
    def start(self, job: Job, node: str) -> None:
        job.attempts += 1
        job.service = f"jaxgrade-{self.id}-{job.index}-{job.attempts}"
        job.node, job.created, job.running_since = node, time.monotonic(), None
        mounts, job.configs = [], []
        with tempfile.TemporaryDirectory() as tmp:
            for k, data in enumerate(cut(job.sub.notebook, CONFIG_BYTES)):
                part, name = Path(tmp) / str(k), f"{job.service}-{k:03d}"
                part.write_bytes(data)
                docker.config.create(name, part, labels={LABEL: self.id})
                job.configs.append(name)
                mounts += ["--config", f"source={name},target={INCOMING}/{job.index}.{k:03d},mode=0400"]
        seed = ["--env", f"{SEED_VARIABLE}={self.seed}"] if self.seed is not None else []
        cli("service", "create", "--detach", "--name", job.service, "--mode", "replicated-job",
            "--restart-condition", "none", "--constraint", f"node.id=={node}",
            "--network", self.network, "--label", self.label, "--no-resolve-image",
            "--limit-cpu", f"{self.limits.cpus:g}", "--limit-memory", self.limits.memory,
            "--limit-pids", str(self.limits.pids),
            "--secret", f"source={self.secret},target=grading-key,mode=0400", *mounts, *seed,
            self.ref, *task_command(self.limits, INCOMING, KEY, "--index", str(job.index),
                                    "--name", job.sub.notebook.name))

    def stop(self, job: Job) -> None:
        """Remove the attempt's service and configs (its task, if alive, is killed)."""
        self.spent.update(job.configs)
        try:
            docker.service.remove(job.service)
        except DockerException:
            pass   # cleanup() removes what is left

    def remove_spent(self) -> None:
        """Remove the configs of ended attempts whose task is gone (a batch of thousands
        would otherwise keep every notebook in the swarm's store until its end)."""
        if not self.spent:
            return
        try:
            docker.config.remove(sorted(self.spent))
        except DockerException:
            pass   # the CLI removes what it can; the rest are still in use
        self.spent &= {c.spec.name for c in docker.config.list(filters={"label": self.label})}

    def read_result(self, job: Job) -> container.Outcome | None:
        """The verified outcome in the finished task's log (None: there is none)."""
        for _ in range(3):   # a finished task's log can take a moment to reach the manager
            try:
                payload = logframes.decode(docker.service.logs(job.service, raw=True),
                                           self.key, self.limits.results_bytes * 3)
            except DockerException:
                payload = None
            if payload is not None and payload.get("index") == str(job.index):
                return container.outcome(payload, self.limits, payload.get("seconds", 0.0))
            time.sleep(1)
        return None

    # -- the loop -------------------------------------------------------------------------
    def check(self, job: Job, task, nodes: Nodes) -> str | container.Outcome | None:
        """What became of an attempt: an Outcome, a reason to retry, or None (still going)."""
        now = time.monotonic()
        where = nodes.names.get(job.node, job.node)
        if task is None:
            return (f"Swarm made no task for it within {self.cluster.start_timeout_s:g} s"
                    if now - job.created > self.cluster.start_timeout_s else None)
        state = task.status.state
        if state == "complete":
            return self.read_result(job) or f"its task on {where} ended without a verified result in its log"
        if state in FAILED:
            return f"its task on {where} was {state}: {task.status.err or 'no reason given'}"
        if job.node not in nodes.up:
            return f"node {where} went down while grading it"
        if state in PENDING and now - job.created > self.cluster.start_timeout_s:
            return f"its task on {where} did not start within {self.cluster.start_timeout_s:g} s ({state})"
        if state == "running":
            job.running_since = job.running_since or now
            if now - job.running_since > self.limits.timeout_s + self.cluster.grace_s:   # its node is stuck
                return f"its task on {where} ran past the time limit and did not stop"
        return None

    def run(self, subs: list[submissions.Submission], on_done) -> dict[int, container.Outcome]:
        """Grade `subs` (all gradable); `on_done(index, outcome, node name)` as each ends."""
        queue = [Job(i, s) for i, s in enumerate(subs)]
        active: list[Job] = []
        done: dict[int, container.Outcome] = {}
        last_progress = 0.0
        while queue or active:
            nodes = Nodes.read(self.limits, self.cluster.per_node)
            busy = Counter(j.node for j in active)
            for node, slots in sorted(nodes.slots.items(), key=lambda kv: busy[kv[0]] - kv[1]):
                while queue and busy[node] < slots:
                    job = queue.pop(0)
                    try:
                        self.start(job, node)
                    except DockerException as exc:
                        self.stop(job)
                        self.retry_or_fail(job, f"its task could not be created ({str(exc).strip()[-200:]})",
                                           queue, done, on_done)
                        continue
                    active.append(job)
                    busy[node] += 1
            tasks = {}
            if active:
                try:
                    for task in docker.service.ps([j.service for j in active]):
                        tasks[task.service_id] = task
                except DockerException:
                    pass   # a service removed in between: read again next round
            services = {s.spec.name: s.id for s in docker.service.list(filters=[("label", self.label)])}
            for job in list(active):
                verdict = self.check(job, tasks.get(services.get(job.service)), nodes)
                if verdict is None:
                    continue
                active.remove(job)
                node = nodes.names.get(job.node, job.node)
                self.stop(job)
                if isinstance(verdict, container.Outcome):
                    self.tally.setdefault(node, Counter())["done"] += 1
                    done[job.index] = verdict
                    on_done(job.index, verdict, node)
                    continue
                self.tally.setdefault(node, Counter())["failed"] += 1
                self.retry_or_fail(job, verdict, queue, done, on_done)
            self.remove_spent()
            if time.monotonic() - last_progress > 15:
                last_progress = time.monotonic()
                self.progress(nodes, active)
            time.sleep(POLL_S)
        return done

    def retry_or_fail(self, job: Job, reason: str, queue: list[Job], done: dict, on_done) -> None:
        """Back to the front of the queue, or (attempts spent) a row that says why."""
        job.reasons.append(reason)
        if job.attempts < self.cluster.attempts:
            self.log(f"  retrying {job.sub.file}: {reason}")
            queue.insert(0, job)
            return
        outcome = container.Outcome(None, f"not graded after {job.attempts} attempts: {reason}", 0.0)
        done[job.index] = outcome
        on_done(job.index, outcome, "-")

    def progress(self, nodes: Nodes, active: list[Job]) -> None:
        running = Counter(nodes.names.get(j.node, j.node) for j in active)
        names = sorted(set(nodes.names.values()) | set(self.tally))
        self.log("  nodes: " + "; ".join(
            f"{n}: {self.tally.get(n, Counter())['done']} done, {running[n]} running, "
            f"{self.tally.get(n, Counter())['failed']} failed" for n in names))

