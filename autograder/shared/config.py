"""The platform's one configuration: the repository's top-level otter_config.json.

    image       the grading image every path uses (the Makefile reads it too)
    lab_image   the students' image: the grading image plus JupyterLab (make lab)
    otter       Otter's own settings (keys of Otter's AutograderConfig), merged into every
                autograder zip's otter_config.json by make assign
    limits      what the runner allows the student's process (autograder.runner): travels
                in each zip as files/limits.json, so Gradescope and otter grade obey it too
    containers  make grade's container per submission (autograder.host)
    cluster     make grade --backend swarm and make k8s: the registry every node pulls the
                grading image from, attempts, start timeout, gradings per node
    validate    make validate (autograder.authoring.validate)
    similarity  the similarity report (make similarity, and a section of make grade's report):
                the threshold, what is compared, copydetect's token thresholds

An assignment overrides a key of `otter` in its ASSIGNMENT CONFIG's `generate:` section
(Otter writes it into the zip) and a key of `limits` in a `limits:` section of the same
cell (read by autograder.authoring.assign); both win over the shared values.
Every key is documented in the README ("Configuration"). A file with an unknown key, a
missing key or a wrong type is refused with one sentence naming the key.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Limits:
    """The runner's limits on the witness (the student's process)."""
    grading_s: float            # all questions of one grading (Gradescope stops at 600 s)
    notebook_s: float           # running the notebook once
    question_s: float           # answering one question
    notebook_starts: int        # (re)starts of the notebook per grading
    address_space_bytes: int    # RLIMIT_AS (JAX alone maps ~1.5 GB)
    processes: int              # RLIMIT_NPROC of the student's uid (threads count)
    file_bytes: int             # RLIMIT_FSIZE
    open_files: int             # RLIMIT_NOFILE
    cpu_s: int                  # RLIMIT_CPU
    output_bytes: int           # the notebook's output kept for the instructor's log
    notebook_bytes: int         # a submitted notebook (or the one in its zip)
    message_bytes: int          # one reply from the witness


@dataclass(frozen=True)
class ContainerLimits:
    """make grade: one container per submission."""
    parallel: int               # containers at once
    timeout_s: float            # wall time of one container (Gradescope's default: 600)
    memory: str                 # docker --memory (Gradescope's default: 768m)
    cpus: float                 # docker --cpus
    pids: int                   # docker --pids-limit
    results_bytes: int          # the largest results.json read back


@dataclass(frozen=True)
class ClusterSettings:
    """Grading on a Docker Swarm or Kubernetes cluster (autograder.host.swarm, .k8s)."""
    registry: str               # host:port of the registry every node pulls the image from
    attempts: int               # tries per submission when a node or task fails (not the grading)
    start_timeout_s: float      # a task not running by then is retried (image pull, no node)
    per_node: int               # gradings at once per node; 0: as many as its CPUs and memory hold


@dataclass(frozen=True)
class ValidateSettings:
    jobs: int                   # gradings at once
    attack_limits: dict         # `limits` keys lowered for solutions/adversarial/
    runner_timeout_s: float     # one runner process, whatever happens
    log_bytes: int              # the most a runner may print about one answer


@dataclass(frozen=True)
class SimilaritySettings:
    """The similarity report (autograder.host.similarity)."""
    threshold: float            # pairs whose similarity reaches it are listed (0-1]
    pairs: bool                 # compare every pair of submissions
    references: dict            # label -> file of reference material ({assignment} in the path)
    noise_tokens: int           # copydetect's noise threshold: shorter matches do not count
    guarantee_tokens: int       # copydetect's guarantee threshold: longer matches are always found
    shown: int                  # the most pairs shown side by side


@dataclass(frozen=True)
class Config:
    image: str
    lab_image: str
    otter: dict
    limits: Limits
    containers: ContainerLimits
    cluster: ClusterSettings
    validate: ValidateSettings
    similarity: SimilaritySettings


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
    return Config(data["image"], data["lab_image"], check_otter(data["otter"], "otter"), limits,
                  _typed(ContainerLimits, data["containers"], "containers"),
                  _typed(ClusterSettings, data["cluster"], "cluster"), validate,
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
