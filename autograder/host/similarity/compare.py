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
from dataclasses import dataclass, field

import numpy as np
from copydetect import CodeFingerprint, compare_files

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


def _fingerprint(text: str, language: str, settings: Settings, boilerplate=None) -> CodeFingerprint:
    window = settings.guarantee_tokens - settings.noise_tokens + 1   # copydetect's own derivation
    return CodeFingerprint(language, settings.noise_tokens, window, boilerplate,
                           language=LANGUAGES[language], fp=io.StringIO(text))


def boilerplate(given: Code, settings: Settings) -> dict[str, np.ndarray]:
    """The fingerprints of the code every student was given."""
    return {lang: np.array(sorted(_fingerprint(getattr(given, lang), lang, settings).hashes), dtype=np.int64)
            for lang in LANGUAGES if getattr(given, lang).strip()}


def document(name: str, code: Code, given: dict[str, np.ndarray], settings: Settings) -> Document:
    doc = Document(name, code)
    for lang in LANGUAGES:
        text = getattr(code, lang)
        if text.strip():
            fp = _fingerprint(text, lang, settings, given.get(lang))
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
