"""What runs in a student's own Jupyter kernel (JupyterLab, the classic Notebook, VS Code,
a JupyterHub): the course's `grader` (notebook.Notebook)."""
from autograder.student.notebook import Notebook

__all__ = ["Notebook"]
