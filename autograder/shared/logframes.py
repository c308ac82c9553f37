"""A grading's results as signed lines of a container's log: how results come back from a
Swarm or Kubernetes task, which has no folder shared with the instructor's machine.

The task (autograder.runner.task, root in the grading container) writes one frame at the
end: a BEGIN line, the gzip+base64 payload in short lines (Docker splits a log line longer
than 16 KB), and an END line with the payload's HMAC-SHA256 under the batch's key. The key
reaches the task as a root-only secret file the student's uid cannot read, so a frame the
student's code prints (it cannot reach the container's log anyway: the runner's output goes
to a file) never verifies. The host (autograder.host.swarm, autograder.host.k8s) takes the
frame whose HMAC verifies and whose payload names the submission it asked for.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import io
import json

TAG = "JAXGRADE"
CHUNK = 4000   # characters of base64 per log line


def encode(payload: dict, key: bytes) -> list[str]:
    """The log lines that carry `payload` (a JSON-able dict), signed with `key`."""
    blob = gzip.compress(json.dumps(payload, sort_keys=True).encode(), mtime=0)
    text = base64.b64encode(blob).decode()
    mac = hmac.new(key, blob, hashlib.sha256).hexdigest()
    return ([f"{TAG}-BEGIN"] + [f"{TAG} {text[i:i + CHUNK]}" for i in range(0, len(text), CHUNK)]
            + [f"{TAG}-END {mac}"])


def decode(log: str, key: bytes, max_bytes: int) -> dict | None:
    """The last verified payload in `log` (None: there is none). A line of another kind
    inside a frame breaks that frame only; payloads over `max_bytes` are refused."""
    found, chunks = None, None
    for line in log.splitlines():
        line = line.strip()
        if line == f"{TAG}-BEGIN":
            chunks = []
        elif chunks is not None and line.startswith(f"{TAG} "):
            chunks.append(line[len(TAG) + 1:])
        elif chunks is not None and line.startswith(f"{TAG}-END "):
            payload = _verified("".join(chunks), line.split(" ", 1)[1], key, max_bytes)
            found = payload if payload is not None else found
            chunks = None
        else:
            chunks = None
    return found


def _verified(text: str, mac: str, key: bytes, max_bytes: int) -> dict | None:
    try:
        blob = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    if not hmac.compare_digest(hmac.new(key, blob, hashlib.sha256).hexdigest(), mac):
        return None
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(blob)) as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            return None
        payload = json.loads(data)
    except (OSError, ValueError, EOFError):
        return None
    return payload if isinstance(payload, dict) else None
