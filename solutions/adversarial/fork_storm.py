"""The reference answer (its base), then a bounded fork storm: 200 children that sleep for ten minutes.
The answer keeps its marks and no child outlives the grading.

assignment: ffi_lowering
base: reference
score: 10
"""
import os, time


for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
    except OSError:
        break
