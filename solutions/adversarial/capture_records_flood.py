"""Root reads whatever the student writes in its capture folder (issue 54). The runner (root)
read every capture record of the live witness (<pid>-<n>.txt in the witness's .cache/loaded,
up to 20,000 names, 64 KB each) and kept them all before it kept the first 64. After the
reference answer, a cell writes 19,000 records of 64 KB under the witness's own pid (a load
address, then a 64 KB "name"): 1.2 GB that root read into its memory at the first program
naming the answer's library (make grade's containers have 768 MB: the runner was killed).
Now root reads at most limits.loaded_libraries records, each of at most a few KB: the
reference keeps 10/10 and the grading ends normally.

assignment: silu_ffi
base: reference
score: 10
"""
# %%
import os

folder = Path(".cache/loaded")   # the audit module's capture folder (silu.cc's library was copied there)
folder.mkdir(parents=True, exist_ok=True)
record = b"7f0000000000\n/" + b"x" * (65536 - 14)   # 64 KB: the most root read of one record
for n in range(1_000_000, 1_019_000):   # numbers far past the audit module's own
    (folder / f"{os.getpid()}-{n}.txt").write_bytes(record)
