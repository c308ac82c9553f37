"""`make k8s ASSIGNMENT=<name> SUBMISSIONS=<dir>`: the same grading on a Kubernetes cluster,
as manifests and the commands to run them; `collect` turns the pods' logs into make grade's
final_grades.csv and report.html.

    python -m autograder.host.k8s render NAME DIR [--image REF] [--out FOLDER] [--namespace NS]
    python -m autograder.host.k8s collect FOLDER [--namespace NS]

render writes FOLDER/batch.yaml (default dist/k8s/<name>/<batch id>/) and prints what to run:
- one Indexed Job per shard of cluster.job_size submissions (one index per submission; a retry per
  index, `backoffLimitPerIndex`, up to cluster.attempts tries; a failed index never fails
  the others), each pod with make grade's limits (containers.cpus and memory as requests
  and limits; the pids limit is the kubelet's podPidsLimit, a node setting), no service
  account token, no service links, and the task of autograder.runner.task as its command;
- the shard's submissions in ConfigMaps (gzip parts, under 1 MiB each), mounted root-only;
- the batch's key as a Secret, mounted root-only (the results' signature: logframes);
- a NetworkPolicy that selects the batch's pods and allows no ingress and no egress
  (enforced by the cluster's network plugin: Calico, Cilium, ...).
The image is Otter's grading image pushed by digest to cluster.registry (--image gives a
reference that the cluster pulls instead). FOLDER/batch.json (0600: it holds the key)
records which submission each index is, FOLDER/similarity.html the report's similarity
section (render compares the notebooks: collect has only the logs). collect reads each index's pod logs
(`kubectl logs -l ...`), keeps the verified frame, and writes the CSV and the report.
"""
from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from markupsafe import Markup

from autograder.host import container, gradebook, similarity, swarm
from autograder.shared import paths, config as settings, logframes, submissions
from autograder.shared.cases import cases

CONFIGMAP_BYTES = 700 * 1024     # raw bytes per ConfigMap: base64 grows it to under 1 MiB
INCOMING, KEY_DIR = "/run/jax-interop/incoming", "/run/jax-interop/key"
LABEL = "jax-interop.batch"
SIMILARITY = "similarity.html"   # the report's similarity section, made by render (it has the notebooks)


def _configmaps(batch: str, shard: int, subs: list[submissions.Submission]) -> list[dict]:
    """The shard's notebooks as ConfigMaps of keys `<index>.<part>` (gzip, cut)."""
    maps, current, size = [], {}, 0
    for index, sub in enumerate(subs):
        for k, part in enumerate(swarm.cut(sub.notebook, CONFIGMAP_BYTES)):
            if current and size + len(part) > CONFIGMAP_BYTES:
                maps.append(current)
                current, size = {}, 0
            current[f"{index}.{k:03d}"] = base64.b64encode(part).decode()
            size += len(part)
    maps.append(current)
    return [{"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": f"jaxgrade-{batch}-{shard}-{m}", "labels": {LABEL: batch}},
             "binaryData": data} for m, data in enumerate(maps)]


def _job(batch: str, shard: int, count: int, maps: list[dict], image: str, config: settings.Config,
         namespace: str) -> dict:
    limits, cluster = config.containers, config.cluster
    resources = {"cpu": f"{limits.cpus:g}", "memory": _quantity(limits.memory)}
    pod = {
        "metadata": {"labels": {LABEL: batch}},
        "spec": {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "activeDeadlineSeconds": int(limits.timeout_s + cluster.grace_s),
            "containers": [{
                "name": "grade", "image": image,
                "command": swarm.task_command(limits, INCOMING, f"{KEY_DIR}/key"),
                "resources": {"requests": resources, "limits": resources},
                "volumeMounts": [{"name": "incoming", "mountPath": INCOMING, "readOnly": True},
                                 {"name": "key", "mountPath": KEY_DIR, "readOnly": True}],
            }],
            "volumes": [
                {"name": "incoming", "projected": {"defaultMode": 0o400, "sources": [
                    {"configMap": {"name": m["metadata"]["name"]}} for m in maps]}},
                {"name": "key", "secret": {"secretName": f"jaxgrade-{batch}-key", "defaultMode": 0o400}},
            ],
        },
    }
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"jaxgrade-{batch}-{shard}", "namespace": namespace, "labels": {LABEL: batch}},
            "spec": {"completionMode": "Indexed", "completions": count,
                     "parallelism": count, "backoffLimitPerIndex": max(cluster.attempts - 1, 0),
                     "maxFailedIndexes": count, "template": pod}}


def _quantity(size: str) -> str:
    """Docker's memory size (768m) as a Kubernetes quantity (768Mi)."""
    return size[:-1] + {"k": "Ki", "m": "Mi", "g": "Gi"}[size[-1].lower()] if size[-1].isalpha() else size


def render(assignment: str, folder: Path, out: Path | None, config: settings.Config, image: str | None,
           namespace: str = "default") -> Path:
    """Write the batch's manifests and its record; returns the batch's folder."""
    batch, key = secrets.token_hex(4), secrets.token_bytes(32)
    out = out or paths.repo_root() / "dist" / "k8s" / assignment / batch
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        subs = submissions.collect(folder, assignment, Path(work), config.limits.notebook_bytes)
        if image is None:
            from autograder.host import grade
            image = swarm.push(grade.grading_image(assignment, config.image), config.cluster.registry)
        gradable = [s for s in subs if not s.problem]
        docs: list[dict] = [
            {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
             "metadata": {"name": f"jaxgrade-{batch}-key", "labels": {LABEL: batch}},
             "data": {"key": base64.b64encode(key).decode()}},
            {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
             "metadata": {"name": f"jaxgrade-{batch}-no-network", "labels": {LABEL: batch}},
             "spec": {"podSelector": {"matchLabels": {LABEL: batch}}, "policyTypes": ["Ingress", "Egress"]}}]
        jobs = []
        size = config.cluster.job_size
        for shard, start in enumerate(range(0, len(gradable), size)):
            part = gradable[start:start + size]
            maps = _configmaps(batch, shard, part)
            docs += maps + [_job(batch, shard, len(part), maps, image, config, namespace)]
            jobs.append([s.file for s in part])
        # The notebooks leave with the manifests: compare them now, for k8s-collect's report.
        (out / SIMILARITY).write_text(similarity.section(assignment, [(s.file, s.notebook) for s in subs],
                                                         config.similarity))
    for doc in docs:
        doc["metadata"]["namespace"] = namespace
    (out / "batch.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
    record = out / "batch.json"
    record.touch(mode=0o600)
    record.write_text(json.dumps({"assignment": assignment, "batch": batch, "namespace": namespace,
                                  "key": key.hex(), "jobs": jobs,
                                  "problems": {s.file: s.problem for s in subs if s.problem}}, indent=1))
    return out


def commands(out: Path) -> str:
    record = json.loads((out / "batch.json").read_text())
    label, ns = f"{LABEL}={record['batch']}", record["namespace"]
    return "\n".join([
        f"kubectl apply -f {out / 'batch.yaml'}",
        f"kubectl -n {ns} get jobs -l {label} -w          # progress: each Job's succeeded/failed indexes",
        f"make k8s-collect BATCH={out}                    # the CSV and the report, from the pods' logs",
        f"kubectl delete -f {out / 'batch.yaml'}"])


def kubectl_logs(namespace: str, job: str, index: int) -> str:
    """Every pod's log of one index (its retries included)."""
    return subprocess.run(["kubectl", "-n", namespace, "logs", "--tail=-1", "--prefix=false",
                           "-l", f"job-name={job},batch.kubernetes.io/job-completion-index={index}"],
                          capture_output=True, text=True).stdout


def collect(out: Path, config: settings.Config, logs=kubectl_logs) -> list[gradebook.Row]:
    """The batch's rows from its pods' logs; writes final_grades.csv and report.html to `out`."""
    record = json.loads((out / "batch.json").read_text())
    key, assignment = bytes.fromhex(record["key"]), record["assignment"]
    rows = [gradebook.row(file, None, problem, 0.0) for file, problem in record["problems"].items()]
    for shard, files in enumerate(record["jobs"]):
        for index, file in enumerate(files):
            payload = logframes.decode(logs(record["namespace"], f"jaxgrade-{record['batch']}-{shard}", index),
                                       key, config.containers.results_bytes * 3)
            if payload is None or payload.get("index") != str(index):
                rows.append(gradebook.row(file, None, "not graded: no verified result in its pods' logs "
                                                   "(its pods failed, were not run, or were deleted)", 0.0))
                continue
            outcome = container.outcome(payload, config.containers, payload.get("seconds", 0.0))
            r = gradebook.row(file, outcome.results, outcome.status, outcome.seconds, outcome.grading)
            r.peak_mb = outcome.peak_mb
            rows.append(r)
    rows.sort(key=lambda r: r.file)
    all_cases = cases(paths.autograder_zip(assignment))
    gradebook.write_csv(out / "final_grades.csv", rows, all_cases)
    section = out / SIMILARITY
    gradebook.write_html(out / "report.html", assignment, rows, all_cases,
                         Markup(section.read_text()) if section.is_file() else None)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render")
    r.add_argument("assignment", choices=paths.NAMES)
    r.add_argument("submissions", type=Path)
    r.add_argument("--image", help="the grading image as the cluster pulls it (default: push to cluster.registry)")
    r.add_argument("--out", type=Path)
    r.add_argument("--namespace", default="default")
    c = sub.add_parser("collect")
    c.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    config = settings.load_or_exit()
    if args.command == "render":
        out = render(args.assignment, args.submissions, args.out, config, args.image, args.namespace)
        print(f"wrote {out / 'batch.yaml'}; then:\n{commands(out)}")
    else:
        rows = collect(args.folder, config)
        print(f"{len(rows)} rows\n  {args.folder / 'final_grades.csv'}\n  {args.folder / 'report.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
