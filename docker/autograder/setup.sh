#!/usr/bin/env bash
# Gradescope's (and `otter grade`'s) one-time setup of the grading environment, replacing
# Otter's conda-based setup.sh: no Miniforge, no conda-forge, no Playwright download.
#
# On jax-interop-grader:latest everything is already in place and this only checks it.
# On a bare Debian 13 or Ubuntu 24.04 base (Gradescope: "Ubuntu 24.04") it installs
# Python 3.12+ and the compilers from apt, and the pinned requirements into /opt/venv.
set -euo pipefail
SRC=/autograder/source
VENV=/opt/venv

in_place() {
  [[ -x $VENV/bin/python ]] && cmp -s "$SRC/requirements.lock" "$VENV/requirements.lock" 2>/dev/null \
    && $VENV/bin/python -c "import otter, jax, autograder, kernels" 2>/dev/null \
    && [[ -f /opt/jax-interop/prebuilt-kernels/loaded-audit.so ]] && id student >/dev/null 2>&1 && id executor >/dev/null 2>&1
}

if in_place; then
  echo "setup.sh: the grading environment is already in place ($($VENV/bin/python --version))"
else
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3 python3-venv clang make \
    ca-certificates curl unzip dos2unix jq >/dev/null
  python3 -c 'import sys; assert sys.version_info >= (3, 12), "JAX 0.12 needs Python 3.12+: use a Debian 13 or Ubuntu 24.04 base"'
  command -v g++ >/dev/null || ln -s "$(command -v clang++)" /usr/local/bin/g++   # as in the image
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --no-cache-dir --disable-pip-version-check --no-deps -r "$SRC/requirements.lock"
  "$VENV/bin/pip" install -q --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation "$SRC/project"
  cp "$SRC/requirements.lock" "$VENV/requirements.lock"
  # As in the image: student code runs as `student`, the answer's programs as `executor`.
  id student >/dev/null 2>&1 || useradd --create-home --shell /bin/bash student
  id executor >/dev/null 2>&1 || useradd --no-create-home --shell /usr/sbin/nologin executor
  export JAX_INTEROP_PREBUILT_KERNELS=/opt/jax-interop/prebuilt-kernels
  # the course's kernels and the loader's audit module (a copy of each library a notebook loads)
  JAX_INTEROP_KERNEL_CACHE=$JAX_INTEROP_PREBUILT_KERNELS "$VENV/bin/python" -m kernels.prebuild
  chmod -R a+rX,go-w /opt/jax-interop
  "$VENV/bin/python" -I -m autograder.authoring.bytecode   # as in the image: ~2.8 s less per grading
  rm -rf /var/lib/apt/lists/*
fi
