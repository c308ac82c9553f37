"""How a cluster task's outcome comes back through its log (autograder.shared.logframes)
and how the task rebuilds a submission from its parts (autograder.runner.task)."""
import gzip

import pytest

from autograder.runner import task
from autograder.shared import logframes

KEY = b"k" * 32
PAYLOAD = {"index": "3", "results": {"tests": [{"name": "q1", "score": 2}]}, "log": "x" * 20000}


def test_a_frame_comes_back_whole_in_short_lines():
    lines = logframes.encode(PAYLOAD, KEY)
    assert max(len(line) for line in lines) <= logframes.CHUNK + len(logframes.TAG) + 1
    log = "\n".join(["noise before"] + lines + ["noise after"])
    assert logframes.decode(log, KEY, 10**6) == PAYLOAD


@pytest.mark.parametrize("key, spoil", [
    (b"another key", lambda lines: lines),                                   # forged
    (KEY, lambda lines: lines[:1] + [lines[1][:-4] + "AAAA"] + lines[2:]),   # a changed chunk
    (KEY, lambda lines: lines[:1] + ["a line of another kind"] + lines[1:]),  # a line pushed in
    (KEY, lambda lines: lines[:-1]),                                         # no END line
])
def test_a_spoilt_or_forged_frame_gives_nothing(key, spoil):
    assert logframes.decode("\n".join(spoil(logframes.encode(PAYLOAD, key))), KEY, 10**6) is None


def test_the_last_verified_frame_wins_and_size_is_capped():
    forged = logframes.encode({"index": "3", "results": {}}, b"forger")
    real = logframes.encode(PAYLOAD, KEY)
    assert logframes.decode("\n".join(real + forged), KEY, 10**6) == PAYLOAD
    assert logframes.decode("\n".join(real), KEY, 1000) is None     # over max_bytes unpacked


def test_the_task_joins_a_submissions_parts_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(task, "ROOT", tmp_path)
    notebook = b'{"cells": []}' * 5000
    blob = gzip.compress(notebook)
    parts = tmp_path / "incoming"
    parts.mkdir()
    cut = [blob[i:i + 1000] for i in range(0, len(blob), 1000)]
    for k, part in reversed(list(enumerate(cut))):
        (parts / f"7.{k:03d}").write_bytes(part)
    (parts / "8.000").write_bytes(gzip.compress(b"another submission"))
    path = task.assemble(parts, "7", "a.ipynb", 10**6)
    assert path == tmp_path / "submission" / "a.ipynb" and path.read_bytes() == notebook
    # larger than the limit: cut one byte past it, for the runner to refuse with its reason
    assert len(task.assemble(parts, "7", "a.ipynb", 100).read_bytes()) == 101
    with pytest.raises(ValueError):
        task.assemble(parts, "7", "../escape.ipynb", 10**6)
