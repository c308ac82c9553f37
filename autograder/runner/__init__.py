"""The trusted grading process: `python -I -m autograder.runner` (the zip's run_autograder),
as root in the grading container. It never imports witness code: it starts the witness
as a separate unprivileged process (sandbox) and only reads data from it."""
