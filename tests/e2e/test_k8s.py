"""make k8s: the rendered manifests are valid Kubernetes objects (checked offline against
Kubernetes' own schemas: no cluster runs here) with the batch's limits and isolation; and
a pod's command, run in the grading image with its volumes laid out as the kubelet would,
writes a log that `collect` turns into the catalogue's scores, while a log signed with
another key grades nothing."""
import base64
import json
import subprocess

import kubernetes_validate
import pytest
import yaml

from autograder.host import grade, k8s
from autograder.shared import paths, catalogue, logframes
from tests.e2e.conftest import CONFIG, write_submission

NAME = "pure_callback_doubler"
ANSWERS = ["reference", "wrong_float64_result"]
K8S_VERSION = "1.33"   # backoffLimitPerIndex is GA from 1.33


@pytest.fixture(scope="module")
def rendered(built, tmp_path_factory):
    built(NAME)
    d = tmp_path_factory.mktemp("k8s")
    subs = d / "subs"
    subs.mkdir()
    for answer in ANSWERS:
        write_submission(NAME, answer, subs / f"{answer}.ipynb")
    (subs / "notes.txt").write_text("not a notebook")
    image = grade.grading_image(NAME, CONFIG.image)
    out = k8s.render(NAME, subs, d / "batch", CONFIG, image=image, namespace="grading")
    return out, list(yaml.safe_load_all((out / "batch.yaml").read_text())), image


def test_manifests_are_valid_and_isolated(rendered):
    out, docs, image = rendered
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    misspelt = {**docs[-1], "spec": {**docs[-1]["spec"], "backofLimitPerIndex": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):   # the validator does refuse
        kubernetes_validate.validate(misspelt, K8S_VERSION, strict=True)
    kinds = [d["kind"] for d in docs]
    assert kinds == ["Secret", "NetworkPolicy", "ConfigMap", "Job"], kinds
    secret, policy, configmap, job = docs
    assert all(d["metadata"]["namespace"] == "grading" for d in docs)
    batch = json.loads((out / "batch.json").read_text())
    assert (out / "batch.json").stat().st_mode & 0o077 == 0        # it holds the key
    assert batch["jobs"] == [[f"{a}.ipynb" for a in ANSWERS]] and "notes.txt" in batch["problems"]
    # no traffic either way for the batch's pods
    assert policy["spec"] == {"podSelector": {"matchLabels": {k8s.LABEL: batch["batch"]}},
                              "policyTypes": ["Ingress", "Egress"]}
    pod = job["spec"]["template"]
    assert pod["metadata"]["labels"] == {k8s.LABEL: batch["batch"]}
    spec = pod["spec"]
    assert spec["automountServiceAccountToken"] is False and spec["enableServiceLinks"] is False
    assert spec["restartPolicy"] == "Never"
    assert job["spec"]["completionMode"] == "Indexed" and job["spec"]["completions"] == len(ANSWERS)
    assert job["spec"]["backoffLimitPerIndex"] == CONFIG.cluster.attempts - 1
    assert job["spec"]["maxFailedIndexes"] == len(ANSWERS)   # one failed index never fails the others
    (c,) = spec["containers"]
    assert c["image"] == image
    assert c["resources"]["limits"] == {"cpu": f"{CONFIG.containers.cpus:g}", "memory": "768Mi"}
    assert c["resources"]["requests"] == c["resources"]["limits"]
    assert all(v.get("projected", v.get("secret"))["defaultMode"] == 0o400 for v in spec["volumes"])
    assert sorted(configmap["binaryData"]) == ["0.000", "1.000"]


def run_pod(docs: list[dict], index: int, tmp_path) -> str:
    """What the kubelet would do for one index, with Docker: the ConfigMaps and the Secret as
    root-only files, the pod's command and limits, no network. Returns the container's log."""
    job = docs[-1]
    spec = job["spec"]["template"]["spec"]
    (c,) = spec["containers"]
    incoming, key = tmp_path / f"in{index}", tmp_path / f"key{index}"
    incoming.mkdir()
    key.mkdir()
    for d in docs:
        if d["kind"] == "ConfigMap":
            for name, data in d["binaryData"].items():
                (incoming / name).write_bytes(base64.b64decode(data))
        if d["kind"] == "Secret":
            (key / "key").write_bytes(base64.b64decode(d["data"]["key"]))
    for f in [*incoming.iterdir(), *key.iterdir()]:
        f.chmod(0o400)
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    return subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--memory", CONFIG.containers.memory,
         "--cpus", c["resources"]["limits"]["cpu"], "-e", f"JOB_COMPLETION_INDEX={index}",
         "-v", f"{incoming}:{mounts['incoming']}:ro", "-v", f"{key}:{mounts['key']}:ro",
         c["image"], *c["command"]], capture_output=True, text=True, timeout=900).stdout


def test_collect_reads_the_pods_logs(rendered, tmp_path):
    out, docs, _ = rendered
    logs = {i: run_pod(docs, i, tmp_path) for i in range(len(ANSWERS))}
    forged = logframes.encode({"index": "0", "results": {"tests": []}}, b"not the batch's key")
    rows = {r.file: r for r in k8s.collect(out, CONFIG, logs=lambda ns, job, i: logs[i])}
    for answer in ANSWERS:
        expected = catalogue.parse(NAME, paths.solutions(NAME) / f"{answer}.py").score
        r = rows[f"{answer}.ipynb"]
        assert r.status == "Completed" and sum(r.scores.values()) == expected, (answer, r.status, r.scores)
    assert "not a notebook" in rows["notes.txt"].status
    assert (out / "final_grades.csv").read_text().count("\n") == len(ANSWERS) + 1 + 2
    # render compared the notebooks (collect has only logs): the report holds the section
    similar = (out / "report.html").read_text().split('<section id="similarity">', 1)[1]
    assert "reference.ipynb" in similar and "notes.txt (not a readable notebook" in similar
    # a log holding only a frame signed with another key, or nothing: no score, a reason
    rows = {r.file: r for r in k8s.collect(out, CONFIG, logs=lambda ns, job, i: "\n".join(forged) if i == 0 else "")}
    assert all(rows[f"{a}.ipynb"].status.startswith("not graded: no verified result") for a in ANSWERS)
    assert all(not rows[f"{a}.ipynb"].scores for a in ANSWERS)
