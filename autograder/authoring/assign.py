"""`make assign`: run Otter Assign on every master notebook and check what it shipped.

    python -m autograder.authoring.assign [NAME ...]

Writes dist/<name>/student/<name>.ipynb and dist/<name>/autograder/<name>-autograder.zip
(stable names: Otter's timestamp is dropped). First every test cell is compiled and its
names checked (autograder.authoring.test_cells). Otter Assign runs every test, hidden ones
included, against the reference solution and fails if one does not pass. Afterwards
this checks that no hidden test and no solution line reached the student folder.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import zipfile
from pathlib import Path

import yaml
from otter.assign import main as otter_assign

from autograder.authoring import test_cells
from autograder.shared import paths, catalogue, config as settings
from autograder.shared.cases import cases


def build(name: str) -> None:
    bad = test_cells.problems(paths.master(name))
    if bad:
        raise SystemExit(f"{name}: the test cells do not compile:\n  " + "\n  ".join(bad))
    out = paths.dist(name)
    shutil.rmtree(out, ignore_errors=True)
    otter_assign(str(paths.master(name)), str(out), no_pdfs=True)
    (stamped,) = (out / "autograder").glob(f"{name}-autograder_*.zip")
    stamped.rename(paths.autograder_zip(name))
    replace_setup(paths.autograder_zip(name), settings.load_or_exit(), own_limits(name))
    check_student_folder(name)


# Ours replace Otter's conda-based scripts; otter_config.json gets the repository's shared
# Otter settings merged in and files/limits.json is added; run_otter.py and tests/ stay byte-identical.
REPLACED = ("setup.sh", "run_autograder")
PROJECT_FILES = ("pyproject.toml", "autograder/**/*.py", "kernels/*.py", "kernels/*.cc", "kernels/*.cpp", "kernels/*.c")


def own_limits(name: str) -> dict:
    """The `limits:` of the master notebook's ASSIGNMENT CONFIG: keys of otter_config.json's
    limits this assignment changes (Otter itself ignores the key)."""
    nb = json.loads(paths.master(name).read_text())
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "raw" and source.lstrip().startswith("# ASSIGNMENT CONFIG"):
            return dict(yaml.safe_load(source).get("limits") or {})
    return {}


def replace_setup(zip_path: Path, config: settings.Config, limits: dict) -> None:
    """Swap setup.sh and run_autograder for docker/autograder/'s venv-based ones, add what
    they install (requirements.lock, this project's sources under project/) and merge the
    top-level otter_config.json into the zip: Otter's settings into its otter_config.json
    (under the assignment's own generate: keys), the limits into files/limits.json (under the
    assignment's own limits:)."""
    root = paths.repo_root()
    with zipfile.ZipFile(zip_path) as z:
        kept = [(info, z.read(info)) for info in z.infolist() if info.filename not in REPLACED]
    kept = [(info, json.dumps(settings.zip_config(config, json.loads(data)), indent=2).encode()
             if info.filename == settings.FILE else data) for info, data in kept
            if info.filename != settings.LIMITS_FILE]
    added = {name: (root / "docker" / "autograder" / name).read_bytes() for name in REPLACED}
    added["requirements.lock"] = (root / "docker" / "requirements.lock").read_bytes()
    added[settings.LIMITS_FILE] = json.dumps(settings.zip_limits(config, limits), indent=2).encode()
    for pattern in PROJECT_FILES:
        for path in sorted(root.glob(pattern)):
            added[f"project/{path.relative_to(root)}"] = path.read_bytes()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in kept:
            z.writestr(info, data)
        for name, data in added.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100755 if name in REPLACED else 0o100644) << 16  # keep the x bit
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def _hidden_test_lines(name: str) -> set[str]:
    """Lines of the hidden test functions in the autograder zip that no public test has."""
    hidden, public = set(), set()
    for case in cases(paths.autograder_zip(name)):
        lines = {l.strip() for l in case.source.splitlines()
                 if len(l.strip()) > 25 and not l.strip().startswith(("import ", "from "))}
        (hidden if case.hidden else public).update(lines)
    return hidden - public


def _solution_lines(name: str) -> list[str]:
    """Substantive lines between the solution cell's in-code SOLUTION markers."""
    lines, inside = [], False
    for line in catalogue.solution_cell(name).splitlines():
        s = line.strip()
        if s.endswith("# BEGIN SOLUTION"):
            inside = True
        elif s.endswith("# END SOLUTION"):
            inside = False
        elif inside and len(s) > 25 and not s.startswith("#"):
            lines.append(s)
    return lines


def _text(path: Path) -> str:
    """A file's text; for a notebook, every string in its JSON decoded (tests sit in metadata)."""
    raw = path.read_text(errors="replace")
    if path.suffix != ".ipynb":
        return raw

    def strings(obj):
        if isinstance(obj, str):
            yield obj
        elif isinstance(obj, dict):
            for v in obj.values():
                yield from strings(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from strings(v)
    return raw + "\n".join(strings(json.loads(raw)))


def check_student_folder(name: str) -> None:
    """No hidden test and no reference solution line anywhere under dist/<name>/student."""
    texts = {p: _text(p) for p in (paths.dist(name) / "student").rglob("*") if p.is_file()}
    leaks = [f"hidden test line {l!r}" for l in sorted(_hidden_test_lines(name))
             if any(l in s for s in texts.values())]
    leaks += [f"solution line {l!r}" for l in _solution_lines(name) if any(l in s for s in texts.values())]
    if leaks:
        raise SystemExit(f"{name}: the student folder leaks " + "; ".join(leaks[:5]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=paths.present())
    for name in parser.parse_args(argv).names:
        print(f"== otter assign {name}", flush=True)
        build(name)
        print(f"   {paths.student_notebook(name).relative_to(paths.repo_root())}\n"
              f"   {paths.autograder_zip(name).relative_to(paths.repo_root())}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
