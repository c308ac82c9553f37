"""autograder.witness.reachable: the purity check's state is what the host function can reach,
so unrelated globals cost nothing, while state reached by name, through a module the
notebook wrote, a library attribute, a dynamic route or code the reach did not find is
still judged."""
import inspect
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

from autograder.assignments.pure_callback_doubler import witness  # noqa: E402
from autograder.witness.purity import Purity  # noqa: E402
from autograder.witness import reachable  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _cell(ns: dict, source: str, number: int = 1) -> None:
    """Run `source` in `ns` as IPython runs a cell (its code's file name is the shell's)."""
    exec(compile(source, f"<ipython-input-{number}-0123456789ab>", "exec"), ns)


def _notebook(source: str) -> dict:
    ns: dict = {"__name__": "__main__", "np": np}
    _cell(ns, source)
    return ns


def test_unrelated_globals_are_not_walked():
    ns = _notebook("CALLS = []\ndef host(a):\n    return np.asarray(a) * 2\n")
    ns["big"] = [float(i) for i in range(2_000_000)]
    digests, _ = reachable.fingerprints(ns["host"], ns)
    assert "big" not in digests and "CALLS" not in digests and "host" in digests


def test_named_state_is_reached_transitively():
    ns = _notebook("LOG = {'n': [0]}\nclass Base:\n    seen = []\n"
                   "class Counter(Base):\n    def bump(self):\n        self.seen.append(1)\n"
                   "def helper(a):\n    LOG['n'][0] += 1\n    return a\n"
                   "C = Counter()\n"
                   "def host(a):\n    C.bump()\n    return helper(np.asarray(a)) * 2\n")
    before, _ = reachable.fingerprints(ns["host"], ns)
    ns["host"](np.ones(2))
    after, _ = reachable.fingerprints(ns["host"], ns)
    assert {n for n in before if before[n] != after[n]} == {"LOG", "C"}


def test_a_module_the_notebook_wrote(tmp_path, monkeypatch):
    (tmp_path / "helpers_reach.py").write_text(
        "import numpy as np\nCALLS = []\ndef host(a):\n    CALLS.append(1)\n    return np.asarray(a) * 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from helpers_reach import host
    ns = _notebook("")
    ns["host"] = host
    calls = Purity(ns)
    calls.call(host, lambda: host(np.ones(2)), "direct")
    assert calls.calls[0].changed == ["CALLS"]
    sys.modules.pop("helpers_reach")


def test_state_kept_on_a_library_module():
    lib = types.ModuleType("reach_fake_lib")
    ns = _notebook("def host(a):\n    lib.saved.append(1)\n    return np.asarray(a) * 2\n")
    ns["lib"], lib.saved = lib, []
    before, _ = reachable.fingerprints(ns["host"], ns)
    ns["host"](np.ones(2))
    after, _ = reachable.fingerprints(ns["host"], ns)
    assert before["reach_fake_lib.saved"] != after["reach_fake_lib.saved"]


@pytest.mark.parametrize("body", ['globals()["_calls"] += 1', "vars(sys.modules['__main__'])",
                                  "getattr(np, 'x', None)", "(lambda: 0).__globals__"])
def test_dynamic_routes_fall_back_to_every_global(body):
    source = f"import sys\n_calls = 0\nbig = [1.0] * 10\ndef host(a):\n    {body}\n    return a\n"
    _in_a_fresh_process(f"""
ns = _notebook({source!r})
digests, _ = reachable.fingerprints(ns["host"], ns)
assert "big" in digests and "_calls" in digests
""")


def test_student_code_the_reach_missed_widens_the_next_calls():
    """A logging handler of the student's runs inside the host function's call, reached
    through the logging module's own state: from the next call on every global is judged."""
    _in_a_fresh_process('''
ns = _notebook("import logging\\nLOG = []\\n"
               "class Keep(logging.Handler):\\n    def emit(self, record):\\n        LOG.append(record.msg)\\n"
               "logging.getLogger('reach_test').addHandler(Keep())\\n"
               "def host(a):\\n    logging.getLogger('reach_test').warning('called')\\n    return a * 2\\n")
purity = Purity(ns)
for _ in range(2):
    purity.call(ns["host"], lambda: ns["host"](np.ones(2)), "direct")
assert purity.whole and "LOG" in purity.calls[1].changed
''')


def _in_a_fresh_process(source: str) -> None:
    """Run `source` in a new interpreter (with numpy, Purity, reachable, _cell and _notebook):
    a fallback to every global walks every module, and pytest's (hundreds of test modules'
    state by the end of a run) made each such test 30 times slower."""
    prelude = ("import numpy as np\nfrom autograder.witness.purity import Purity\n"
               "from autograder.witness import reachable\n" + inspect.getsource(_cell) + inspect.getsource(_notebook))
    run = subprocess.run([sys.executable, "-c", prelude + source], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
