"""The instructor's machine (the host venv, not the image): make grade (grade, container,
report), make bench (bench) and make demo (demo). It talks to Docker, never to student code."""
