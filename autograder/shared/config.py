"""The platform's one configuration: the repository's top-level otter_config.json.

Every tool reads it (the runner through each autograder zip's copy) and refuses it with one
sentence naming the key when a key is unknown, missing or of the wrong type. `make assign`
merges its `otter` section into each zip's otter_config.json and writes its `limits` into
the zip's files/limits.json (Otter's own grading-image build, used by `otter grade` and
`make grade`, rewrites otter_config.json with Otter's keys only and copies only that,
run_otter.py, tests/ and files/), so a changed limit needs `make assign` (the Makefile
rebuilds a zip when the file changes). An assignment overrides a key of `otter` in the
`generate:` section of its master notebook's ASSIGNMENT CONFIG (Otter writes it into the
zip) and a key of `limits` in a `limits:` section of the same cell (read by
autograder.authoring.assign); both win over the shared values.

Every key is documented in its dataclass below (`doc(...)`): docs/configuration.md is
written from them (python -m autograder.authoring.config_doc; tests/test_config_doc.py
fails when it is out of date).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

FILE = "otter_config.json"
# In each autograder zip. Otter's grading-image build copies only otter_config.json (rewritten
# with Otter's keys), run_otter.py, tests/ and files/ (otter/grade/Dockerfile); Gradescope
# unpacks everything. files/ reaches /autograder/source on every path.
LIMITS_FILE = "files/limits.json"
# Set in the runner's environment (never the student's) to regrade with a known seed:
# make grade --seed N passes it to each container (autograder.runner.verdicts reads it).
SEED_VARIABLE = "JAX_INTEROP_SEED"


class ConfigError(Exception):
    """The configuration is not valid; the message is one sentence naming the key."""


def doc(text: str):
    """A field of the configuration with its documentation (docs/configuration.md is written
    from it: python -m autograder.authoring.config_doc)."""
    return field(metadata={"doc": text})


@dataclass(frozen=True)
class Limits:
    """What the runner allows the student's process (the witness) and the executor, and what
    it reads of them. Travels in each zip as files/limits.json, so Gradescope and otter grade
    obey it too; an assignment overrides a key in a `limits:` section of its ASSIGNMENT CONFIG."""
    grading_s: float = doc("all questions of one grading, notebook runs included (Gradescope stops a container at 600 s)")
    runner_s: float = doc("the runner's whole grading, its own work and the results included: then every process of the student's and the executor's users is killed (what is pending fails at once), and a grading still unwritten 15 s later is recorded as a grader error; keep it below the container's time (`containers.timeout_s`, Gradescope's 600 s)")
    notebook_s: float = doc("one run of the notebook before the questions")
    question_s: float = doc("one question (one `ask.run`), and one program run by the executor")
    notebook_starts: int = doc("how many times a notebook may be (re)started in one grading (a crashing cell is skipped on the next start)")
    address_space_bytes: int = doc("the student's process's address space (`RLIMIT_AS`; JAX alone maps about 1.5 GB)")
    processes: int = doc("processes and threads of the student's uid (`RLIMIT_NPROC`)")
    file_bytes: int = doc("the largest file the student's process may write (`RLIMIT_FSIZE`)")
    open_files: int = doc("open files of the student's process (`RLIMIT_NOFILE`)")
    cpu_s: int = doc("CPU seconds of the student's process (`RLIMIT_CPU`)")
    output_bytes: int = doc("how much of the notebook's output the instructor's log keeps")
    notebook_bytes: int = doc("the largest notebook accepted (a zip's notebook too)")
    message_bytes: int = doc("the largest reply the runner reads from the witness")
    loaded_library_bytes: int = doc("the largest library of the notebook's own the runner copies for the executor (the library it loaded, as it loaded it)")
    loaded_libraries_bytes: int = doc("all the notebook's own loaded libraries copied together")
    loaded_libraries: int = doc("the most libraries of the notebook's own the runner reads the copies of (in the order they were loaded)")


@dataclass(frozen=True)
class ContainerLimits:
    """make grade: one fresh container per submission (autograder.host.container); the course
    hub's student containers take the same memory, cpus and pids."""
    parallel: int = doc("containers at once")
    timeout_s: float = doc("wall time of one submission's container (Gradescope's default: 600)")
    memory: str = doc("`docker --memory`, swap included (Gradescope's default: 768m)")
    cpus: float = doc("`docker --cpus`")
    pids: int = doc("`docker --pids-limit`")
    results_bytes: int = doc("the largest results.json read back")


@dataclass(frozen=True)
class ClusterSettings:
    """Grading on a Docker Swarm (make grade BACKEND=swarm, autograder.host.swarm) or a
    Kubernetes cluster (make k8s, autograder.host.k8s)."""
    registry: str = doc("`host:port` of the registry every node pulls the grading image from (`--registry` overrides it)")
    attempts: int = doc("tries per submission when a task or node fails (never for a grading's own outcome)")
    start_timeout_s: float = doc("Swarm: a task not running by then is retried (an image that cannot be pulled, no node)")
    per_node: int = doc("Swarm: gradings at once per node; 0: as many as its CPUs and memory hold")
    grace_s: float = doc("past `containers.timeout_s`: a Swarm task still running is retried (its node is stuck, not the grading), a Kubernetes pod's deadline")
    job_size: int = doc("Kubernetes: submissions per Indexed Job (one index each)")


@dataclass(frozen=True)
class ValidateSettings:
    """make validate (autograder.authoring.validate): every answer of solutions/ graded."""
    jobs: int = doc("gradings at once")
    attack_limits: dict = doc("`limits` keys lowered for solutions/adversarial/ (an endless loop would otherwise hold a job for minutes)")
    runner_timeout_s: float = doc("one runner process, whatever happens")
    log_bytes: int = doc("the most a runner may print about one answer")


@dataclass(frozen=True)
class SimilaritySettings:
    """The similarity report (make similarity, and the last section of make grade's report;
    autograder.host.similarity)."""
    threshold: float = doc("pairs whose score (the larger share of one's code found in the other) reaches it are listed and shown side by side; at most 1")
    pairs: bool = doc("compare every pair of submissions (`false`: only against the references)")
    references: dict = doc("label -> file of reference material (`{assignment}` in the path); a file that does not exist is named in the report and skipped")
    noise_tokens: int = doc("copydetect's noise threshold: the shortest match that counts, in filtered characters")
    guarantee_tokens: int = doc("copydetect's guarantee threshold (equal to `noise_tokens`: every fingerprint kept, the same scores in every run)")
    shown: int = doc("the most pairs shown side by side")
    context_lines: int = doc("lines kept around each matching passage")
    reference_rows: int = doc("the submissions listed as closest to each reference")


@dataclass(frozen=True)
class Config:
    """The whole file."""
    image: str = doc("the grading image every path uses (the Makefile's `IMAGE`)")
    lab_image: str = doc("the students' image: the grading image plus JupyterLab (`make lab`, the Makefile's `LAB_IMAGE`)")
    otter: dict = doc("Otter's own settings (keys of Otter's `otter_config.json` reference, checked by Otter's `AutograderConfig`), merged into every autograder zip's otter_config.json; an assignment overrides a key under `generate:` in its ASSIGNMENT CONFIG")
    limits: Limits = doc("the runner's limits")
    containers: ContainerLimits = doc("make grade's containers")
    cluster: ClusterSettings = doc("Swarm and Kubernetes")
    validate: ValidateSettings = doc("make validate")
    similarity: SimilaritySettings = doc("the similarity report")


def _expect_keys(data, known: list[str], where: str) -> None:
    """`data` is an object with exactly the keys `known`, or ConfigError."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be an object of keys, not {type(data).__name__}.")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{where} has the unknown key {unknown[0]!r} (known: {', '.join(known)}).")
    missing = [k for k in known if k not in data]
    if missing:
        raise ConfigError(f"{where} lacks the key {missing[0]!r}.")


def _typed(cls, data, where: str):
    """An instance of the dataclass `cls` from `data`, or ConfigError."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    _expect_keys(data, list(fields), where)
    for name, f in fields.items():
        value, kind = data[name], f.type
        ok = {"int": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
              "float": isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0,
              "str": isinstance(value, str) and bool(value),
              "dict": isinstance(value, dict),
              "bool": isinstance(value, bool)}[kind]
        if not ok:
            want = {"int": "a whole number >= 0", "float": "a number > 0", "str": "a non-empty string",
                    "dict": "an object", "bool": "true or false"}[kind]
            raise ConfigError(f"{where}.{name} must be {want}, not {value!r}.")
    return cls(**data)


def check_otter(settings: dict, where: str) -> dict:
    """Otter's own keys, checked by Otter's AutograderConfig (unknown keys) and against the
    type of its defaults (Otter does not check types)."""
    from otter.run.run_autograder.autograder_config import AutograderConfig
    if not isinstance(settings, dict):
        raise ConfigError(f"{where} must be an object of Otter's settings.")
    try:
        defaults = AutograderConfig({}, require_valid_keys=True)
        AutograderConfig(settings, require_valid_keys=True)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc} (see Otter's otter_config.json reference).") from None
    for key, value in settings.items():
        default = getattr(defaults, key, None)
        if default is not None and value is not None and type(value) is not type(default):
            raise ConfigError(f"{where}.{key} must be a {type(default).__name__}, not {value!r}.")
    return settings


def parse(data, where: str = FILE) -> Config:
    _expect_keys(data, [f.name for f in dataclasses.fields(Config)], where)
    for key in ("image", "lab_image"):
        if not isinstance(data[key], str) or not data[key]:
            raise ConfigError(f"{where}: {key} must be a non-empty string (an image name and tag).")
    validate = _typed(ValidateSettings, data["validate"], "validate")
    limits = _typed(Limits, data["limits"], "limits")
    _typed(Limits, {**dataclasses.asdict(limits), **validate.attack_limits}, "validate.attack_limits")
    cluster = _typed(ClusterSettings, data["cluster"], "cluster")
    if cluster.job_size < 1:
        raise ConfigError("cluster.job_size must be at least 1 (submissions per Kubernetes Job).")
    return Config(data["image"], data["lab_image"], check_otter(data["otter"], "otter"), limits,
                  _typed(ContainerLimits, data["containers"], "containers"), cluster, validate,
                  _similarity(data["similarity"]))


def _similarity(data) -> SimilaritySettings:
    s = _typed(SimilaritySettings, data, "similarity")
    if s.threshold > 1:
        raise ConfigError(f"similarity.threshold is a share of the code, at most 1, not {s.threshold!r}.")
    if not 1 <= s.noise_tokens <= s.guarantee_tokens:
        raise ConfigError("similarity.noise_tokens must be at least 1 and at most guarantee_tokens.")
    for label, path in s.references.items():
        if not isinstance(path, str) or not path:
            raise ConfigError(f"similarity.references[{label!r}] must be a file's path, not {path!r}.")
    return s


def read(path: Path) -> Config:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read ({exc.strerror}).") from None
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}).") from None
    try:
        return parse(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load() -> Config:
    """The repository's otter_config.json (the image mounts the repository at /repo)."""
    from autograder.shared import paths
    return read(paths.repo_root() / FILE)


def load_or_exit() -> Config:
    """load(), or exit with the sentence saying what is wrong (for the command-line tools)."""
    try:
        return load()
    except ConfigError as exc:
        raise SystemExit(str(exc)) from None


def zip_config(config: Config, written: dict) -> dict:
    """A zip's otter_config.json: the shared Otter settings under what Otter wrote for the
    assignment (its name, and any key its ASSIGNMENT CONFIG's generate: sets)."""
    return check_otter({**config.otter, **written}, "the zip's otter_config.json")


def zip_limits(config: Config, overrides: dict) -> dict:
    """A zip's files/limits.json: the shared limits under the assignment's own `limits:`."""
    limits = {**dataclasses.asdict(config.limits), **overrides}
    _typed(Limits, limits, "limits")   # refuse a bad override at make assign, not at grading
    return limits


def runner_limits(source: Path) -> Limits:
    """The runner's limits: the zip's files/limits.json (see LIMITS_FILE)."""
    path = source / LIMITS_FILE
    if not path.exists():
        raise ConfigError(f"the autograder zip has no {LIMITS_FILE}; rebuild it with make assign.")
    return _typed(Limits, json.loads(path.read_text()), "limits")
