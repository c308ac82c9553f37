"""Similarity of the student's own code (student_code.Code) with copydetect: MOSS's
winnowing over Pygments tokens, names, strings and comments not counting, the shipped
notebook's code removed as boilerplate. Python and C++ are fingerprinted apart, each with
its own lexer; a document's similarity to another is the share of its fingerprinted tokens
(both languages together) that the other holds too.

Only pairs that share a fingerprint are compared in full (a pair that shares none has 0):
matrix products over the fingerprints find them.
"""
from __future__ import annotations

import io
import multiprocessing
import os
import threading
from dataclasses import dataclass, field

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

from autograder.host.similarity.student_code import Code
from autograder.shared.config import SimilaritySettings as Settings

LANGUAGES = {"python": "python", "cpp": "cpp"}    # Code's field -> Pygments lexer


@dataclass
class Document:
    name: str
    code: Code
    prints: dict[str, CodeFingerprint] = field(default_factory=dict)   # language -> fingerprint

    @property
    def tokens(self) -> float:
        """Fingerprinted tokens of both languages (the given code's left out)."""
        return float(sum(p.token_coverage for p in self.prints.values()))


def _fingerprint(text: str, language: str, settings: Settings, boilerplate: set[int] = frozenset()) -> CodeFingerprint:
    window = settings.guarantee_tokens - settings.noise_tokens + 1   # copydetect's own derivation
    fp = CodeFingerprint(language, settings.noise_tokens, window, language=LANGUAGES[language],
                         fp=io.StringIO(text))
    # The boilerplate is removed here, not by CodeFingerprint's `boilerplate`: that one
    # intersects with assume_unique=True and deletes one index per hash, so a boilerplate
    # k-gram that occurs twice in the document (every "def f(x): ..." of a skeleton) survives.
    # Plain ints and index arrays: compare_files converts every index list at every compare.
    fp.hashes = {int(h) for h in fp.hashes} - boilerplate
    fp.hash_idx = {int(h): np.asarray(idx) for h, idx in fp.hash_idx.items() if int(h) not in boilerplate}
    fp.token_coverage = get_token_coverage(fp.hash_idx, fp.k, len(fp.filtered_code))
    return fp


def boilerplate(given: Code, settings: Settings) -> dict[str, set[int]]:
    """The fingerprints of the code every student was given."""
    return {lang: _fingerprint(getattr(given, lang), lang, settings).hashes
            for lang in LANGUAGES if getattr(given, lang).strip()}


def document(name: str, code: Code, given: dict[str, set[int]], settings: Settings) -> Document:
    doc = Document(name, code)
    for lang in LANGUAGES:
        text = getattr(code, lang)
        if text.strip():
            fp = _fingerprint(text, lang, settings, given.get(lang, frozenset()))
            if fp.hashes:
                doc.prints[lang] = fp
    return doc


@dataclass
class Match:
    a: Document
    b: Document
    similarity: tuple[float, float]                # share of a's tokens found in b, of b's in a
    slices: dict[str, tuple[np.ndarray, np.ndarray]]   # language -> copied passages of a, of b

    @property
    def score(self) -> float:
        return max(self.similarity)


def compare(a: Document, b: Document) -> Match:
    covered, slices = [0.0, 0.0], {}
    for lang in a.prints.keys() & b.prints.keys():
        fa, fb = a.prints[lang], b.prints[lang]
        overlap, (sa, sb), (pa, pb) = compare_files(fa, fb)
        if overlap:
            covered[0] += sa * fa.token_coverage
            covered[1] += sb * fb.token_coverage
            slices[lang] = (pa, pb)
    similarity = (min(1.0, covered[0] / a.tokens) if a.tokens else 0.0,
                  min(1.0, covered[1] / b.tokens) if b.tokens else 0.0)
    return Match(a, b, similarity, slices)


def sharing_pairs(docs: list[Document], chunk: int = 4096) -> list[tuple[int, int]]:
    """The pairs (i < j) of documents that share at least one fingerprint: the documents x
    fingerprints incidence matrix times its transpose, a chunk of fingerprints at a time
    (memory: documents x chunk, not documents x every fingerprint)."""
    holders: dict[tuple[str, int], list[int]] = {}
    for i, d in enumerate(docs):
        for lang, fp in d.prints.items():
            for h in fp.hashes:
                holders.setdefault((lang, int(h)), []).append(i)
    shared_prints = [held for held in holders.values() if len(held) > 1]
    shared = np.zeros((len(docs), len(docs)), dtype=np.float32)
    for start in range(0, len(shared_prints), chunk):
        part = shared_prints[start:start + chunk]
        incidence = np.zeros((len(docs), len(part)), dtype=np.float32)
        incidence[[i for held in part for i in held], [c for c, held in enumerate(part) for _ in held]] = 1.0
        shared += incidence @ incidence.T
    i, j = np.nonzero(np.triu(shared, k=1))
    return list(zip(i.tolist(), j.tolist()))


_DOCS: list[Document] = []   # a worker's documents, given once by _share


def _share(docs: list[Document]) -> None:
    global _DOCS
    _DOCS = docs


def _compare_some(job: tuple[list[tuple[int, int]], float]):
    pairs, threshold = job
    out = []
    for i, j in pairs:
        m = compare(_DOCS[i], _DOCS[j])
        if m.score > 0:   # passages only where they are shown: memory for 125,000 pairs
            out.append((i, j, m.similarity, m.slices if m.score >= threshold else {}))
    return out


def compare_pairs(docs: list[Document], pairs: list[tuple[int, int]], threshold: float,
                  workers: int | None = None) -> list[Match]:
    """The matches (score > 0) of `pairs`. copydetect compares in Python, one core per
    process: a large class is compared in one worker process per CPU."""
    workers = workers or os.cpu_count() or 1
    chunk = max(1, len(pairs) // (workers * 8))
    jobs = [(pairs[k:k + chunk], threshold) for k in range(0, len(pairs), chunk)]
    if workers == 1 or len(pairs) < 5000:
        _share(docs)
        try:
            parts = list(map(_compare_some, jobs))
        finally:
            _share([])
    else:
        # fork shares the documents for free, but forking a process with threads can
        # deadlock the child: then spawn, which pickles them to each worker once
        method = "fork" if threading.active_count() == 1 else "spawn"
        with multiprocessing.get_context(method).Pool(workers, _share, (docs,)) as pool:
            parts = pool.map(_compare_some, jobs)
    return [Match(docs[i], docs[j], similarity, slices) for part in parts for i, j, similarity, slices in part]
