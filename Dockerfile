# Two images from one file:
#   grader  Debian 13's Python 3.13 in a venv, clang++, the pinned JAX/Otter stack from
#           docker/requirements.lock, and this project's `autograder` and `kernels`
#           packages, with the chapter's kernels prebuilt. Grading, make assign, make validate.
#   lab     the grader plus JupyterLab (docker/lab-requirements.lock): what students run.
#   hub     a course's JupyterHub (make hub): JupyterHub, DockerSpawner and its proxy,
#           configurable-http-proxy from npm on Debian's Node.js; it starts the lab image.
#
#   make image / make lab-image   (the host's CA bundle goes in as the `pip_ca` BuildKit secret)
ARG BASE_IMAGE=debian:trixie-slim
FROM ${BASE_IMAGE} AS system

ENV DEBIAN_FRONTEND=noninteractive \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=1 \
    JAX_INTEROP_PREBUILT_KERNELS=/opt/jax-interop/prebuilt-kernels

# Python, clang++, and the tools Otter's grading Dockerfile and setup.sh call. `g++` is
# clang++ under the name the chapter's compile line uses (as on macOS): GCC itself would add
# 140 MB for a second compiler that compiles the same kernels.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 python3-venv clang make \
      ca-certificates curl wget unzip dos2unix jq \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/* \
 && ln -s "$(command -v clang++)" /usr/local/bin/g++

# The witness's walk of a process in C (autograder/witness/reach.c: the comparison of two
# worlds, issue 48), built against Python's headers in a stage of its own: the headers and
# libpython's static library stay out of the grading image. Named by its source's hash,
# which the witness checks before loading it (autograder/witness/reach.py).
FROM system AS reach
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-dev \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*
COPY autograder/witness/reach.c /tmp/reach.c
RUN mkdir /out \
 && clang -O2 -Wall -Werror -shared -fPIC $(python3-config --includes) \
      -o "/out/_reach-$(sha256sum /tmp/reach.c | cut -c1-16).so" /tmp/reach.c

FROM system AS grader
# Exact versions of every Python package. Behind a proxy that re-signs TLS the host's
# CA bundle arrives as a secret mount: it is read here and never stored in a layer.
# Playwright's driver (158 MB of Node.js) goes: Otter requires nbconvert[webpdf], but PDF
# export also needs a browser, which is never installed and never used (pdf: false).
COPY docker/requirements.lock /tmp/requirements.lock
RUN --mount=type=secret,id=pip_ca \
    if [ -s /run/secrets/pip_ca ]; then export PIP_CERT=/run/secrets/pip_ca; fi \
 && python3 -m venv "$VIRTUAL_ENV" \
 && pip install --no-deps -r /tmp/requirements.lock \
 && pip check \
 && mv /tmp/requirements.lock "$VIRTUAL_ENV/requirements.lock" \
 && find "$VIRTUAL_ENV" -depth -name __pycache__ -type d -exec rm -rf {} + \
 && find "$VIRTUAL_ENV" -path '*/site-packages/*/tests' -type d -prune -exec rm -rf {} + \
 && rm -rf "$VIRTUAL_ENV"/lib/python3*/site-packages/playwright/driver

# The unprivileged account that runs student code and JupyterLab, and the one that runs the
# programs an answer built (autograder/executor/: another uid, out of the student's reach).
RUN useradd --create-home --uid 1000 --shell /bin/bash student \
 && useradd --no-create-home --uid 1001 --shell /usr/sbin/nologin executor

# This project's packages; then the chapter's kernels compiled once into a read-only cache,
# so grading never pays the compile time for them, with the loader's audit module that copies
# each library a notebook loads for the grader (kernels/loaded_audit.c), and bytecode for the
# ~1,100 modules a grading imports (21 MB; 2.8 s less per grading:
# autograder/authoring/bytecode.py).
COPY pyproject.toml /opt/jax-interop/src/pyproject.toml
COPY autograder /opt/jax-interop/src/autograder
COPY kernels /opt/jax-interop/src/kernels
RUN pip install --no-deps --no-build-isolation /opt/jax-interop/src \
 && rm -rf /opt/jax-interop/src /tmp/* \
 && JAX_INTEROP_KERNEL_CACHE="$JAX_INTEROP_PREBUILT_KERNELS" python -m kernels.prebuild \
 && chmod -R a+rX,go-w /opt/jax-interop \
 && python -I -m autograder.authoring.bytecode
COPY --from=reach /out/ /opt/jax-interop/reach/

# ------------------------------------------------------------------------------------
# The students' image: JupyterLab on top of the grader, so a notebook runs the same code
# in both. `make lab` serves it unprivileged.
FROM grader AS lab
COPY docker/lab-requirements.lock /tmp/lab-requirements.lock
RUN --mount=type=secret,id=pip_ca \
    if [ -s /run/secrets/pip_ca ]; then export PIP_CERT=/run/secrets/pip_ca; fi \
 && pip install --no-deps --no-compile -r /tmp/lab-requirements.lock \
 && pip check \
 && mv /tmp/lab-requirements.lock "$VIRTUAL_ENV/lab-requirements.lock"
# No first-run prompt between a student and the notebook: JupyterLab's news pop-up is off.
# ~/work exists, the student's: a hub's named volume mounted there starts owned by them.
RUN jupyter labextension disable "@jupyterlab/apputils-extension:announcements" \
 && install -d -o student -g student /home/student/work

# ------------------------------------------------------------------------------------
# A course's hub (make hub, docker/hub/): nothing of the grader, its own venv.
FROM ${BASE_IMAGE} AS hub
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    VIRTUAL_ENV=/opt/hub PATH=/opt/hub/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*
COPY docker/hub-requirements.lock /tmp/hub-requirements.lock
RUN --mount=type=secret,id=pip_ca \
    if [ -s /run/secrets/pip_ca ]; then export PIP_CERT=/run/secrets/pip_ca NODE_EXTRA_CA_CERTS=/run/secrets/pip_ca; fi \
 && python3 -m venv "$VIRTUAL_ENV" \
 && pip install --no-deps -r /tmp/hub-requirements.lock \
 && pip check \
 && npm install --global --no-fund --no-audit configurable-http-proxy@5.3.0 \
 && npm cache clean --force \
 && mv /tmp/hub-requirements.lock "$VIRTUAL_ENV/hub-requirements.lock"
COPY docker/hub/jupyterhub_config.py /srv/jupyterhub/jupyterhub_config.py
WORKDIR /srv/jupyterhub
CMD ["jupyterhub", "-f", "/srv/jupyterhub/jupyterhub_config.py"]
