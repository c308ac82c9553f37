"""The course chapter's sections (../shared/seeds/chapter5-interop-custom-ops.txt), so that
every failed case can say where the concept it checks is taught (checks.feedback)."""
from __future__ import annotations

TITLES = {
    "5.1": "Integrating JAX with NumPy",
    "5.2": "Zero-copy data sharing with DLPack",
    "5.3": "Calling external CPU/GPU code: from host_callback to three kinds of callbacks",
    "5.4": "Side-effect-free calls with jax.pure_callback",
    "5.5": "Introduction to JAX primitives",
    "5.6": "Defining custom primitives",
    "5.7": "Implementing abstract evaluation rules",
    "5.8": "Implementing lowering rules for backends",
    "5.9": "Differentiation rules for custom primitives",
    "5.10": "Practice: integrating a C++ function",
}


def where_to_read(section: str) -> str:
    """'Read section 5.4 of the chapter (Side-effect-free calls with jax.pure_callback).'"""
    return f"Read section {section} of the chapter ({TITLES[section]})." if section else ""
