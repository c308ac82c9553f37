"""Which cells of a notebook are the student's work (the witness runs them; so does
make bench's bare floor, autograder.authoring.bare_run)."""


def gradable_cells(nb) -> list[tuple[int, str]]:
    """(index, source) of the code cells to run. Otter's own cells (init, grader.check,
    grader.export: every line of them is Otter's) are not part of the work; a cell that
    also holds other code runs whole."""
    cells = []
    for index, cell in enumerate(nb.cells):
        lines = [l.strip() for l in cell.source.splitlines()] if cell.cell_type == "code" else []
        code = [l for l in lines if l and not l.startswith("#")]
        if code and not all(l.startswith(("import otter", "grader.", "grader =")) for l in code):
            cells.append((index, cell.source))
    return cells
