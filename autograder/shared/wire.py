"""Plain data between the grader and the student's process.

Messages are length-prefixed: a JSON document, then the arrays it refers to as raw .npy
blobs beside it (never base64 inside the JSON: a million floats cost a copy, not an
encoding); the evidence records (autograder.shared.evidence) as typed records,
other dataclasses and dicts as dicts. Decoding can only build dict, list, str, int, float,
bool, None, numeric np.ndarray and the evidence records, each field checked against its
annotation: nothing the student's process sends is ever unpickled or imported by the
grading side. An array's header is read first and its cost counted before any work: only
numbers (bool, integers, floats, complex: no object, string, void or zero-byte items), and
exactly the bytes its declared shape needs, present in the message (so a reply cannot
declare 2^62 elements of nothing and make the runner encode them again: issue 54).
"""
from __future__ import annotations

import dataclasses
import io
import json
import math
import struct
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

from autograder.shared import evidence


class WireError(Exception):
    """The other side sent something that is not a message (or closed the pipe)."""


def encode(value: Any) -> Any:
    """A JSON-able form of `value`; unknown objects become a description of their type."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and type(value) in (int, float):
        return value
    if isinstance(value, (np.ndarray, np.generic)) or type(value).__name__ == "ArrayImpl":
        arr = np.asarray(value)
        if arr.dtype.hasobject:
            return {"$object": "ndarray of Python objects"}
        buf = io.BytesIO()
        np.save(buf, arr, allow_pickle=False)
        return {"$npy": Blob(buf.getbuffer())}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"$dict": {str(k): encode(v) for k, v in value.items()}}
    if type(value) in evidence.RECORDS.values():
        return {"$record": type(value).__name__,
                "fields": encode({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    return {"$object": f"{type(value).__module__}.{type(value).__qualname__}"}


def decode(data: Any) -> Any:
    if isinstance(data, list):
        return [decode(v) for v in data]
    if isinstance(data, dict):
        if "$npy" in data:
            blob = data["$npy"]
            if not isinstance(blob, (Blob, bytes, bytearray, memoryview)):
                raise WireError("an array without its bytes")
            return _array(blob.data if isinstance(blob, Blob) else blob)
        if "$dict" in data:
            return {k: decode(v) for k, v in data["$dict"].items()}
        if "$record" in data:
            try:
                return evidence.build(str(data["$record"]), decode(data.get("fields")))
            except evidence.RecordError as exc:
                raise WireError(str(exc)) from None
        if "$object" in data:
            return Opaque(str(data["$object"]))
        raise WireError(f"unknown record {sorted(data)[:3]}")
    return data


NUMBERS = "biufc"   # dtype kinds that travel: bool, int, uint, float, complex


def _array(raw) -> np.ndarray:
    """The array in the .npy bytes `raw`, refused unless it holds numbers and exactly the bytes
    its header declares (checked before a byte of it is used)."""
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:
            raise ValueError(f"version {version}")
        shape, fortran, dtype = read_header(stream, max_header_size=4096)
    except (ValueError, SyntaxError, TypeError) as exc:
        raise WireError(f"an array that is not .npy ({exc})") from None
    if dtype.kind not in NUMBERS or dtype.fields is not None or dtype.subdtype is not None or dtype.itemsize == 0:
        raise WireError(f"an array of {dtype.str} (only arrays of numbers travel)")
    if any(type(n) is not int or n < 0 for n in shape):
        raise WireError(f"an array of shape {shape}")
    count, start = math.prod(shape), stream.tell()
    if count * dtype.itemsize != len(raw) - start:
        raise WireError(f"an array of shape {shape} and dtype {dtype.str} in {len(raw) - start} bytes")
    flat = np.frombuffer(raw, dtype=dtype, count=count, offset=start)
    return flat.reshape(shape, order="F" if fortran else "C").copy(order="K")


class Blob:
    """An array's .npy bytes inside a message before it travels (frame puts them beside the
    JSON, receive puts them back)."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


@dataclasses.dataclass(frozen=True)
class Opaque:
    """An object that is not data (a function, a tracer, ...): only its type name travels."""
    type_name: str


def frame(message: dict) -> bytes:
    """A message as it travels: 8-byte big-endian length of the rest; the JSON's length and
    the JSON, in which each array's bytes are {"$blob": k}; then each blob, its length first."""
    blobs: list = []

    def aside(obj):
        if isinstance(obj, Blob):
            blobs.append(obj.data)
            return {"$blob": len(blobs) - 1}
        raise TypeError(f"{type(obj).__name__} is not JSON")

    body = json.dumps(message, default=aside).encode()
    parts = [struct.pack(">Q", len(body)), body]
    for b in blobs:
        parts += [struct.pack(">Q", len(b)), b]
    rest = b"".join(parts)
    return struct.pack(">Q", len(rest)) + rest


def send(stream: BinaryIO, message: dict) -> None:
    stream.write(frame(message))
    stream.flush()


def receive(read: Callable[[int], bytes], limit: int | None) -> dict:
    """The next message, read with `read(n)` (which returns fewer bytes once the pipe is
    closed, or raises: the grader's reader enforces a deadline this way). A message larger
    than `limit` bytes (limits.message_bytes) is refused; None: from the grader, trusted."""
    head = read(8)
    if len(head) < 8:
        raise WireError("the pipe closed")
    (size,) = struct.unpack(">Q", head)
    if limit is not None and size > limit:
        raise WireError(f"a message of {size} bytes exceeds the {limit}-byte limit")
    body = memoryview(read(size))
    if len(body) < size:
        raise WireError("the pipe closed mid-message")
    blobs, at = [], 8
    if size < 8:
        raise WireError("a message without its JSON's length")
    (json_size,) = struct.unpack(">Q", body[:8])
    at += json_size
    while at < size:   # the blobs: each its length, then its bytes, to the end of the message
        if at + 8 > size:
            raise WireError("a blob without its length")
        (n,) = struct.unpack(">Q", body[at:at + 8])
        if at + 8 + n > size:
            raise WireError("a blob past the end of the message")
        blobs.append(body[at + 8:at + 8 + n])
        at += 8 + n
    try:
        message = json.loads(bytes(body[8:8 + json_size]), object_hook=lambda d: _blob(d, blobs))
    except (ValueError, IndexError) as exc:
        raise WireError(f"not a message ({exc})") from None
    if not isinstance(message, dict):
        raise WireError("a message must be a JSON object")
    return message


def _blob(d: dict, blobs: list):
    """A JSON object as receive reads it: {"$blob": k} is blob k's bytes."""
    if set(d) == {"$blob"}:
        k = d["$blob"]
        if type(k) is not int or not 0 <= k < len(blobs):
            raise ValueError("a reference to no blob")
        return blobs[k]
    return d
