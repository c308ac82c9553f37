"""Grade one notebook in a fresh container of the grading image, with no network and
with limits on time, memory, processes and CPU. Results come back as data: Otter's
results.json and the runner's grading.json (seed and verdicts), never Otter's pickle."""
from __future__ import annotations

import json
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from python_on_whales import docker
from python_on_whales.exceptions import DockerException

from autograder.shared.config import SEED_VARIABLE, ContainerLimits
from autograder.shared.safe_files import read_regular


@dataclass
class Outcome:
    results: dict | None       # Otter's results.json, when grading finished
    status: str                # "Completed" or why it did not
    seconds: float
    log: str = ""              # the container's output (the instructor's eyes only)
    peak_mb: float | None = None  # the container's peak memory, when measured
    grading: dict | None = None   # the runner's grading.json: {"seed", "cases": [verdict, ...]}


# For make bench: the cgroup's peak memory, printed after grading (cgroup v1, then v2).
_MEASURED = ("/autograder/run_autograder; s=$?; echo PEAK_BYTES=$(cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes"
             " 2>/dev/null || cat /sys/fs/cgroup/memory.peak 2>/dev/null); exit $s")


def grade_in_container(image: str, notebook: Path, limits: ContainerLimits,
                       measure_memory: bool = False, seed: int | None = None) -> Outcome:
    """`seed` regrades with the inputs of an earlier grading (its grading.json's seed)."""
    t0 = time.monotonic()
    command = ["bash", "-c", _MEASURED] if measure_memory else ["/autograder/run_autograder"]
    container = docker.container.create(
        image, command, networks=["none"], memory=limits.memory,
        memory_swap=limits.memory, cpus=limits.cpus, pids_limit=limits.pids,
        envs={} if seed is None else {SEED_VARIABLE: str(seed)})
    try:
        docker.container.copy(notebook, (container, f"/autograder/submission/{notebook.name}"))
        container.start()
        if not _stopped_within(container, limits.timeout_s - (time.monotonic() - t0)):
            container.kill()
            return outcome({"timed_out": True, "log": _logs(container)}, limits, time.monotonic() - t0)
        container.reload()
        log = _logs(container)
        peak = [l.split("=", 1)[1] for l in log.splitlines() if l.startswith("PEAK_BYTES=")]
        return outcome({"oom_killed": container.state.oom_killed, "exit_code": container.state.exit_code,
                        "results": _read_json(container, "results.json", limits.results_bytes),
                        "grading": _read_json(container, "grading.json", limits.results_bytes),
                        "peak_mb": int(peak[-1]) / 2**20 if peak and peak[-1].strip().isdigit() else None,
                        "log": log}, limits, time.monotonic() - t0)
    finally:
        container.remove(force=True)


def outcome(facts: dict, limits: ContainerLimits, seconds: float) -> Outcome:
    """A grading's Outcome from what its container reported (here, or a cluster task's
    signed frame: autograder.runner.task): the same reasons on every backend."""
    log = facts.get("log", "")
    if facts.get("timed_out"):
        return Outcome(None, f"timed out after {limits.timeout_s:g} s", seconds, log)
    if facts.get("oom_killed"):
        return Outcome(None, f"ran out of memory (limit {limits.memory})", seconds, log)
    if facts.get("results") is None:
        return Outcome(None, f"the autograder produced no results (exit code {facts.get('exit_code')})",
                       seconds, log)
    return Outcome(facts["results"], "Completed", seconds, log, facts.get("peak_mb"), facts.get("grading"))


def _stopped_within(container, seconds: float) -> bool:
    """Wait for the container to stop, at most `seconds` (`docker wait` in a thread: it
    returns the moment the container stops, where polling lost ~0.25 s per submission)."""
    stopped = threading.Event()

    def wait() -> None:
        try:
            docker.container.wait(container)
        except DockerException:
            pass
        stopped.set()

    threading.Thread(target=wait, daemon=True).start()
    return stopped.wait(max(seconds, 0))


def _read_json(container, name: str, max_bytes: int) -> dict | None:
    """/autograder/results/<name> from the stopped container, as data (None if absent, not a
    regular file, too large or not JSON: `docker cp` copies a link as a link, which is never
    followed here, on the instructor's machine)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            docker.container.copy((container, f"/autograder/results/{name}"), Path(tmp) / "r.json")
            data, _ = read_regular(Path(tmp) / "r.json", max_bytes)
            return None if data is None else json.loads(data)
        except (DockerException, OSError, ValueError):
            return None


def _logs(container) -> str:
    try:
        return docker.container.logs(container)[-20000:]
    except DockerException:
        return ""
