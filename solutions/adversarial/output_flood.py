"""The reference answer (its base), then a cell that prints 50 MB through Python and writes 50 MB more straight to
file descriptors 1 and 2: the log keeps a bounded part, the marks are unaffected.

assignment: ffi_lowering
base: reference
score: 10
"""
import os, sys


chunk = "spam " * 200_000            # 1 MB
for _ in range(50):
    print(chunk)
for _ in range(25):
    os.write(1, chunk.encode())
    os.write(2, chunk.encode())
