"""The libraries the notebook built, built again by the grader from the records of its
compiler runs (autograder/witness/compile_record.py): the C++ the notebook compiled, as it
compiled it.

A record names, for each file a compiler run wrote, its sha256, the translation units
compiled into it (preprocessed, as the compiler saw them) and the objects it linked (by
their sha256, each the output of an earlier run: `clang++ -c a.cc` then `clang++ -shared
a.o b.o`, as make and CMake build). The witness reports the sha256 of the library each FFI
target was registered from; the library made by that output is built here: every unit
compiled with the options of its own run that change the machine code (the standard,
optimization, floating-point and code-generation flags; compile_line.judged), and linked
with its run's system libraries. A flag the grader cannot honour, or an input no recorded
run made, is refused with a sentence. An executable the notebook built for its own checks,
or a draft it never loaded, is never built: only what a registration names is.
"""
from __future__ import annotations

import binascii
import ctypes
import hashlib
import json
import os
import zlib
from pathlib import Path

from autograder.executor import cpp
from autograder.shared import compile_line

class Recorded:
    """The notebook's compiler runs, by the files they wrote."""

    def __init__(self, texts: list[str]):
        self._made: dict[str, tuple[dict, dict]] = {}      # sha256 of a file -> (record, output)
        self._paths: dict[str, tuple[dict, dict]] = {}     # its real path -> the latest such
        self._built: dict[str, cpp.Built] = {}
        for text in texts:
            try:
                record = json.loads(text)
                for output in record["outputs"]:
                    if isinstance(output.get("sha256"), str):
                        self._made[output["sha256"]] = (record, output)
                    self._paths[str(output["path"])] = (record, output)
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                continue   # not a record the wrapper wrote: nothing it names can be built

    def find(self, library: dict) -> tuple[dict, dict] | None:
        """The run that made the library file `library` ({"sha256", "path"}, what the witness
        saw when the notebook registered from it): by its bytes, or by its path when the file
        was gone by then."""
        if not isinstance(library, dict):
            return None
        if library.get("sha256") is not None:
            return self._made.get(str(library["sha256"]))
        return self._paths.get(str(library.get("path")))

    def build(self, made: tuple[dict, dict]) -> cpp.Built:
        """The grader's build of that library (once per library)."""
        record, output = made
        key = str(output.get("sha256") or output.get("path"))
        if key not in self._built:
            name = os.path.basename(str(output.get("path")))
            try:
                path, error = self._library(record, output, name)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError, binascii.Error,
                    zlib.error) as exc:
                path, error = None, f"the record of the compiler run that made {name} could not be read ({exc!r})"
            self._built[key] = _loaded(name, path) if path is not None else cpp.Built(name, None, "", error)
        return self._built[key]

    def _library(self, record: dict, output: dict, name: str) -> tuple[Path | None, str]:
        objects, problem = self._objects(record, [record["units"][i] for i in output["units"]], name)
        if problem:
            return None, problem
        _, link_flags, _ = compile_line.judged(record["flags"])
        for arg in record["inputs"]:
            arg_text = str(arg.get("arg"))
            if arg_text.startswith("-l"):
                if arg_text[2:] not in compile_line.SYSTEM_LIBRARIES:
                    return None, (f"your notebook linked {name} with {arg_text}, a library the grader does not "
                                  f"link (only {', '.join(sorted(compile_line.SYSTEM_LIBRARIES))})")
                link_flags.append(arg_text)
                continue
            # an object, or each object of a static library (all of them: a superset of what
            # the notebook's link took from it, which cannot lack a symbol it registered)
            for digest in arg["members"] if isinstance(arg.get("members"), list) else [arg.get("sha256")]:
                made = self._made.get(str(digest))
                if made is None or not made[1].get("object"):
                    return None, (f"your notebook linked {arg_text} into {name}, and the grader builds only "
                                  "objects your notebook's own compiler runs made from C or C++ sources")
                more, problem = self._objects(made[0], [made[0]["units"][i] for i in made[1]["units"]], name)
                if problem:
                    return None, problem
                objects += more
        path, diagnostics = cpp.link(objects, link_flags)
        return path, "" if path else f"{name}, as the grader built it from your notebook's C++, did not link: " \
                                     f"{_first(diagnostics)}"

    def _objects(self, record: dict, units: list[dict], name: str) -> tuple[list[Path], str]:
        """Each unit of one run compiled with that run's honoured flags."""
        compile_flags, _, refused = compile_line.judged(record["flags"])
        if refused:
            return [], (f"your notebook built {name} with the compiler flag {refused}, which the grader cannot "
                        "honour when it builds your C++ again")
        objects = []
        for unit in units:
            if "error" in unit or unit.get("language") not in cpp.PREPROCESSED:
                return [], f"the grader could not read {unit.get('source')} as your notebook compiled it into {name}"
            text = cpp.unit_text(unit)
            if hashlib.sha256(text).hexdigest() != unit.get("sha256"):
                return [], f"the record of {unit.get('source')}, compiled into {name}, is damaged"
            path, diagnostics = cpp.compile_unit(unit["language"], text, compile_flags)
            if path is None:
                return [], (f"{unit.get('source')}, as your notebook compiled it into {name}, did not compile "
                            f"again for the grader: {_first(diagnostics)}")
            objects.append(path)
        return objects, ""


def _loaded(name: str, path: Path) -> cpp.Built:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    try:
        return cpp.Built(name, ctypes.cdll.LoadLibrary(str(path)), digest)
    except OSError as exc:   # a symbol it uses is defined nowhere
        return cpp.Built(name, None, digest, f"{name}, as the grader built it from your notebook's C++, could "
                                             f"not be loaded ({exc})")


def _first(diagnostics: str) -> str:
    return "\n".join(diagnostics.strip().splitlines()[:cpp.SHOWN_LINES])
