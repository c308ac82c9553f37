"""The similarity report on real cases (host side, no grading): the catalogue's answers of
each assignment as a class, copies a student disguises (names, comments and blank lines,
order, a helper inlined) rank above answers written independently, which are not flagged;
the reference pasted verbatim tops its list; only the student's own code counts; C++ in
Python strings is compared as C++; the page escapes what students wrote."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import nbformat
import pytest

from autograder.host.similarity import batch, disguise, report, student_code
from autograder.shared import paths, catalogue
from tests.e2e.conftest import CONFIG

SETTINGS = CONFIG.similarity
# Per assignment, two valid answers written independently of each other (different
# mechanisms, different code): they must not be flagged.
INDEPENDENT = {
    "reduce_sum_rules": ("alt_chapter_appendix_with_asserts", "alt_transpose_reshape"),  # keepdims reshape, batch dim last
    "ffi_lowering": ("alt_chapter_appendix_with_asserts", "alt_jit_impl_all_platforms"),  # jit impl, all platforms
    "gammaln_callback": ("reference", "alt_one_callback_tuple"),     # one host function returning a tuple
    "silu_ffi": ("reference", "alt_stable_formula"),                 # another formula, double precision, 1-D
}
# The doubler's whole answer is two lines of its own (the defs are given): every correct
# doubler is alike and a disguise moves its score either way (docs/grading.md says so), so the
# disguise tests take the four chapter exercises.
CHAPTER = sorted(INDEPENDENT)
APPENDIX, REFERENCE = "the chapter's appendix solution", "the assignment's reference answer"


@pytest.fixture(autouse=True, scope="module")
def student_notebooks(built):
    for name in paths.NAMES:   # the boilerplate: each shipped student notebook
        built(name)


def analysed(name: str, codes: dict[str, str], folder: Path) -> batch.Result:
    folder.mkdir(parents=True, exist_ok=True)
    notebooks = [(f, catalogue.write_submission(name, code, folder / f)) for f, code in codes.items()]
    return batch.analyse(name, notebooks, SETTINGS)


def pair(result: batch.Result, x: str, y: str):
    """The pair's match and its rank (a pair that shares nothing is not listed: last, 0)."""
    for rank, m in enumerate(result.pairs):
        if {m.a.name, m.b.name} == {x, y}:
            return m, rank
    return None, len(result.pairs)


def catalogue_class(name: str) -> dict[str, str]:
    """Every answer of the catalogue as a student types it."""
    return {f"{a.name}.ipynb": a.typed for a in catalogue.answers(name)}


@pytest.mark.parametrize("name", CHAPTER)
def test_disguised_copies_rank_above_independent_answers(name, tmp_path):
    first, second = INDEPENDENT[name]
    codes = catalogue_class(name)
    for original in (first, second):
        codes[f"copy_of_{original}.ipynb"] = disguise.copy(name, codes[f"{original}.ipynb"])
    result = analysed(name, codes, tmp_path)
    independent, its_rank = pair(result, f"{first}.ipynb", f"{second}.ipynb")
    its_score = independent.score if independent else 0.0
    assert its_score < SETTINGS.threshold, f"independent answers flagged: {independent.similarity}"
    for original in (first, second):
        copied, rank = pair(result, f"{original}.ipynb", f"copy_of_{original}.ipynb")
        assert copied in result.flagged() and copied.score > its_score and rank < its_rank


@pytest.mark.parametrize("step", disguise.STEPS)
def test_each_disguise_alone_keeps_a_copy_flagged(step, tmp_path):
    """Every valid answer of every assignment that the step changes, against its copy."""
    changed = 0
    for name in CHAPTER:
        for a in catalogue.answers(name):
            copied = disguise.copy(name, a.typed, (step,))
            if a.score != 10 or copied == disguise.copy(name, a.typed, ()):
                continue
            changed += 1
            result = analysed(name, {"original.ipynb": a.typed, "copy.ipynb": copied}, tmp_path / a.name)
            assert result.pairs and result.pairs[0].score >= SETTINGS.threshold, (name, a.name)
    assert changed >= 3, f"{step} changed {changed} answers: the test proves little"


@pytest.mark.parametrize("name", paths.NAMES)
def test_the_reference_pasted_verbatim_tops_the_lists(name, tmp_path):
    codes = catalogue_class(name)
    reference = codes.pop("reference.ipynb")
    codes["pasted_reference.ipynb"] = catalogue.solution_cell(name)
    appendix = codes.pop("alt_chapter_appendix_with_asserts.ipynb", None)
    if appendix:   # two students who pasted the chapter's appendix
        codes["pasted_appendix_1.ipynb"] = codes["pasted_appendix_2.ipynb"] = appendix
    result = analysed(name, codes, tmp_path)
    closest = {label: next(m for m in result.references if m.b.name == label) for label in result.reference_labels}
    # at the top, tied with the catalogue's answers that differ from it only in names or
    # literals (silu's alt_vmap_sequential_unrolled changes one string)
    pasted = next(m for m in result.references if m.b.name == REFERENCE and m.a.name == "pasted_reference.ipynb")
    assert pasted.similarity == closest[REFERENCE].similarity == (1.0, 1.0)
    assert (APPENDIX in closest) == bool(appendix) and len(result.missing) == (not appendix)
    if appendix:
        assert closest[APPENDIX].a.name.startswith("pasted_appendix_") and closest[APPENDIX].similarity == (1.0, 1.0)
        # at the top (tied with the catalogue's answers that differ only in names or literals)
        both, _ = pair(result, "pasted_appendix_1.ipynb", "pasted_appendix_2.ipynb")
        assert both.similarity == (1.0, 1.0) and both in result.flagged()
    assert reference   # the catalogue's reference is the pasted one, left out to keep the top unique


def test_only_the_students_own_code_counts(tmp_path):
    """The shipped notebook's cells are the boilerplate: two students who wrote nothing are
    not alike, and an answer's score does not rest on the given code."""
    name = "silu_ffi"
    result = analysed(name, {"blank_1.ipynb": None, "blank_2.ipynb": None,
                             "reference.ipynb": catalogue.solution_cell(name)}, tmp_path)
    assert [d.name for d in result.documents] == ["reference.ipynb"] and not result.pairs
    assert {f for f, _ in result.left_out} == {"blank_1.ipynb", "blank_2.ipynb"}
    own = student_code.of_notebook(tmp_path / "reference.ipynb", student_code.Given.of(paths.student_notebook(name)))
    assert "grader.check" not in own.python and "print(\"FFI headers:\"" not in own.python
    # the answer cell's given lines (silu's includes, the skeleton's defs) are boilerplate:
    # two students who kept them and wrote different code are not alike
    shipped = nbformat.read(paths.student_notebook(name), as_version=4)
    skeleton = next(c.source for c in shipped.cells if catalogue.ANSWER_CELL_TAG in c.metadata.get("tags", []))
    mine = skeleton.replace("...", "print([i * i for i in range(10)], {'a': 1, 'b': (2, 3)}, sorted('xyz'))", 1)
    theirs = skeleton.replace("...", "while True:\n    break\nelse:\n    raise SystemExit(1 if 2 > 3 else 4)", 1)
    result = analysed(name, {"mine.ipynb": mine, "theirs.ipynb": theirs}, tmp_path / "skeleton")
    m, _ = pair(result, "mine.ipynb", "theirs.ipynb")
    assert len(result.documents) == 2 and m is None


def test_cpp_in_python_strings_is_compared_as_cpp(tmp_path):
    """The kernels count as C++ (a Python string is one token): two answers with the same
    kernels and other Python match on the C++, and a %%writefile cell is C++ too."""
    code = catalogue.solution_cell("silu_ffi")
    own = student_code.of_cells([("cell", code)])
    assert "XLA_FFI_DEFINE_HANDLER_SYMBOL" in own.cpp and "XLA_FFI" not in own.python
    assert student_code.CPP_PLACEHOLDER in own.python
    magic = student_code.of_cells([("cell", "%%writefile cpp/silu.cc\n#include <cmath>\nfloat f(float x) { return x; }\n")])
    assert "float f(float x)" in magic.cpp
    kernels = code.split("Path(", 1)[0]
    other_python = kernels + "\nimport this_is_not_the_same_python as p\nprint(p.something(1, 2, 3), [i for i in range(9)])\n"
    result = analysed("silu_ffi", {"a.ipynb": code, "b.ipynb": other_python}, tmp_path)
    m, _ = pair(result, "a.ipynb", "b.ipynb")
    assert set(m.slices) == {"cpp"} and m.score >= SETTINGS.threshold


def test_reference_material_that_is_missing_is_named(tmp_path):
    settings = dataclasses.replace(SETTINGS, references={"notes": "solutions/{assignment}/no_such_file.py"})
    path = catalogue.write_submission("silu_ffi", catalogue.solution_cell("silu_ffi"), tmp_path / "a.ipynb")
    result = batch.analyse("silu_ffi", [("a.ipynb", path), ("broken.ipynb", None)], settings)
    assert result.missing == ["notes (solutions/silu_ffi/no_such_file.py)"] and not result.references
    assert result.left_out == [("broken.ipynb", "not a readable notebook of this assignment")]


def test_the_page_escapes_student_code_and_marks_the_matches(tmp_path):
    name = "pure_callback_doubler"
    evil = catalogue.solution_cell(name) + "\nNOTE = '<script>alert(1)</script></pre><b>'\n"
    result = analysed(name, {"a.ipynb": evil, "b.ipynb": disguise.copy(name, evil)}, tmp_path)
    html = report.page(name, result)
    assert "<script>" not in html and "</pre><b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<mark>" in html and "a reason to look, not proof" in html
    assert "data:image/png;base64," in html


def test_a_failure_to_compare_never_costs_the_grades(tmp_path, monkeypatch):
    from autograder.host import similarity

    def boom(*args, **kwargs):
        raise RuntimeError("<b>lexer exploded</b>")
    monkeypatch.setattr(batch, "analyse", boom)
    html = similarity.section("silu_ffi", [], SETTINGS)
    assert "could not be computed: RuntimeError: &lt;b&gt;lexer exploded&lt;/b&gt;" in html


def test_make_similarity_in_a_browser(tmp_path):
    """make similarity on a class with a disguised copy: the page, in Chromium, lists the copy
    first and shows its matching passages marked (the screenshot in docs/grading.md)."""
    from playwright.sync_api import sync_playwright
    from tests.e2e.conftest import ROOT, run
    from tests.e2e.lab_page import CHROMIUM
    name = "silu_ffi"
    answers = {a.name: a for a in catalogue.answers(name)}
    subs = tmp_path / "subs"
    subs.mkdir()
    for student, answer in (("ada", "reference"), ("grace", "alt_stable_formula"), ("alan", "wrong_backward_formula"),
                            ("barbara", "alt_chapter_appendix_with_asserts")):
        catalogue.write_submission(name, answers[answer].typed, subs / f"{student}.ipynb")
    catalogue.write_submission(name, disguise.copy(name, answers["alt_stable_formula"].typed), subs / "edsger.ipynb")
    (subs / "notes.txt").write_text("not a notebook")
    out = tmp_path / "out"
    printed = run(["make", "-C", str(ROOT), "similarity", f"ASSIGNMENT={name}", f"SUBMISSIONS={subs}",
                   f"SIMILARITY_ARGS=--out {out}"]).stdout
    assert "edsger.ipynb" in printed.split("pairs at or above", 1)[1].splitlines()[1]   # the first pair listed
    shots = ROOT / "dist" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto((out / "similarity.html").as_uri())
        first = page.locator("table.pairs tr").nth(1).inner_text()
        assert "edsger.ipynb" in first and "grace.ipynb" in first
        assert page.locator("#pair1 mark").first.is_visible()
        assert "reason to look, not proof" in page.locator("p.caution").inner_text()
        assert "notes.txt" in page.locator("#similarity").inner_text()   # not compared, and said so
        page.screenshot(path=str(shots / "similarity.png"), full_page=False)
        browser.close()
    rows = (out / "similarity.csv").read_text().splitlines()
    assert rows[0].startswith("submission,other,") and len(rows) > 3
