"""What of a notebook the grader runs (autograder/shared/gradable.py): Otter's conventions for
notebook habits. Is a cell tagged otter_ignore left out? Are measuring magics left out while
the code they time still runs once, and does every other magic run as in Jupyter?"""
import nbformat

from autograder.shared import gradable


def _notebook(*sources, tags=None):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    for index, tag in (tags or {}).items():
        nb.cells[index].metadata["tags"] = [tag]
    return nb


def test_otter_ignore_cells_and_otters_own_cells_are_not_run():
    nb = _notebook('import otter\ngrader = otter.Notebook("x.ipynb")', "x = 1", "raise SystemExit",
                   'grader.check("q1")', tags={2: "otter_ignore"})
    assert gradable.gradable_cells(nb) == [(1, "x = 1")]


def test_measuring_magics_are_not_run_but_the_code_they_time_is():
    nb = _notebook("%timeit f(x)\ny = 1", "%%timeit -n 3 -r 1\nz = f(x)\n", "%time w = f(x)",
                   "for i in range(2):\n    %time v = f(i)\n", "%matplotlib inline\nimport matplotlib",
                   "%prun -s cumulative u = f(x)")
    assert [s for _, s in gradable.gradable_cells(nb)] == [
        "pass\ny = 1", "z = f(x)\n", "w = f(x)", "for i in range(2):\n    v = f(i)\n",
        "pass\nimport matplotlib", "u = f(x)"]


def test_other_magics_and_shell_commands_run_as_in_jupyter():
    sources = ["%%writefile cpp/silu.cc\nint x;\n", "!clang++ -shared -o a.so a.cc", "%cd cpp",
               "%load_ext autoreload", "x = 5 % 3"]
    assert [s for _, s in gradable.gradable_cells(_notebook(*sources))] == sources
