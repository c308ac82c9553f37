"""grader.export() refuses a notebook file that does not hold the code its kernel ran
(autograder.student.Notebook), whatever the frontend: a real IPython kernel receives the
cells as JupyterLab sends them (with the cell's id in the request's metadata) and as a
frontend that sends no id does."""
import json
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel

from autograder.student.notebook import REFUSAL

INIT = 'import otter\nfrom autograder.student import Notebook\ngrader = Notebook("work.ipynb")'
EXPORT = "grader.export(pdf=False)"


class Kernel:
    def __init__(self, cwd: Path, send_ids: bool):
        self.km, self.kc = start_new_kernel(cwd=str(cwd))
        self.send_ids = send_ids

    def run(self, cell_id: str, code: str) -> str:
        """Execute `code` as cell `cell_id`; its printed output (an error fails the test)."""
        metadata = {"cellId": cell_id} if self.send_ids else {}
        msg = self.kc.session.msg("execute_request", {"code": code, "silent": False, "store_history": True,
                                                      "user_expressions": {}, "allow_stdin": False},
                                  metadata=metadata)
        self.kc.shell_channel.send(msg)
        out = []
        while True:
            reply = self.kc.get_iopub_msg(timeout=120)
            if reply["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
                continue
            kind, content = reply["msg_type"], reply["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                raise AssertionError("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(out)

    def stop(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def save(path: Path, cells: dict[str, str]) -> None:
    """What the frontend's Save writes: the cells as they are on screen."""
    nb = nbformat.v4.new_notebook()
    for cell_id, code in cells.items():
        cell = nbformat.v4.new_code_cell(code)
        cell.id = cell_id
        nb.cells.append(cell)
    nbformat.write(nb, path)
    time.sleep(0.05)   # a later run is strictly newer than the file


def zips(folder: Path) -> list[Path]:
    return sorted(folder.glob("work_*.zip"))


@pytest.mark.parametrize("send_ids", [True, False], ids=["cell ids (JupyterLab)", "no cell ids"])
def test_an_unsaved_edit_is_never_exported(tmp_path, send_ids):
    nb = tmp_path / "work.ipynb"
    screen = {"init": INIT, "answer": "x = 1", "export": EXPORT}
    save(nb, screen)
    kernel = Kernel(tmp_path, send_ids)
    try:
        kernel.run("init", INIT)
        kernel.run("answer", "x = 1")
        kernel.run("export", EXPORT)                       # saved, then run: exported
        assert len(zips(tmp_path)) == 1

        screen["answer"] = "x = 2"                         # edited and run, not saved
        kernel.run("answer", "x = 2")
        out = kernel.run("export", EXPORT)
        assert REFUSAL.format(start="x = 2") in out, out
        assert len(zips(tmp_path)) == 1                    # no stale zip

        save(nb, screen)                                   # saved: exported, with the edit
        kernel.run("export", EXPORT)
        assert len(zips(tmp_path)) == 2
        with zipfile.ZipFile(zips(tmp_path)[-1]) as z:
            assert "x = 2" in json.loads(z.read("work.ipynb"))["cells"][1]["source"]

        kernel.run("rerun", "y = 3")                       # a new cell, run, never saved
        assert "Nothing was exported" in kernel.run("export", EXPORT)
        save(nb, {**screen, "rerun": "y = 3"})
        kernel.run("answer", "x = 2")                      # run again after saving: same code
        kernel.run("export", EXPORT)
        assert len(zips(tmp_path)) == 3
    finally:
        kernel.stop()
