"""The executor: runs the program an answer built (StableHLO handed over by the witness) with
no student Python and only the course's kernels, as its own unprivileged user."""
