"""make variants: valid rewrites of an assignment's answer, graded; the refused ones
reported (docs/variants.md). prelude.py holds the forms, generate.py applies them,
assignments/<name>.py says which apply where, __main__.py judges and grades."""
