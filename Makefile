# One place for every command of the platform. `make help` lists them.
# The image name, like every limit, comes from otter_config.json (docs/configuration.md).
IMAGE ?= $(shell python3 -c 'import json; print(json.load(open("otter_config.json"))["image"])')
LAB_IMAGE ?= $(shell python3 -c 'import json; print(json.load(open("otter_config.json"))["lab_image"])')
HUB_IMAGE ?= jax-interop-hub:latest
BASE_IMAGE ?= debian:trixie-slim
# The assignments: the packages of autograder/assignments/ (autograder.assignments.ALL).
NAMES := $(patsubst autograder/assignments/%/__init__.py,%,$(wildcard autograder/assignments/*/__init__.py))
DOCKER_RUN = docker run --rm --network none -v "$(CURDIR):/repo" -w /repo \
             -e PYTHONPATH=/repo -e JAX_INTEROP_KERNEL_CACHE=/tmp/kernel-cache
PYTEST_ARGS ?=
# The instructor's side (otter grade, make grade, end-to-end tests) runs in a venv on the host.
VENV := .venv
HOST_PY := PYTHONPATH=$(CURDIR) $(VENV)/bin/python
PROJECT_SRC := $(wildcard autograder/*.py autograder/*/*.py autograder/*/*/*.py kernels/*.py kernels/*.cc kernels/*.cpp kernels/*.c docker/autograder/*) \
               docker/requirements.lock otter_config.json
# JupyterLab runs unprivileged: as your own uid, or as `student` (uid 1000) when make runs as root.
LAB_UID ?= $(shell u=$$(id -u); [ "$$u" = 0 ] && echo 1000:1000 || echo $$u:$$(id -g))

.PHONY: help image lab-image hub-image hub hub-stop lock host-lock venv test test-image test-e2e demo assign config-doc validate validate-built mutants mutants-sample variants variants-sample grade similarity similarity-bench bench lab authoring-lab k8s k8s-collect chromium wheel

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

demo: venv $(NAMES:%=dist/%/.built)  ## the main job: grade sample submissions of all five assignments
	$(HOST_PY) -m autograder.host.demo

# The end-to-end tests mostly wait (registries, pip, servers, time limits; 0.9 of the two
# cores): they run beside the image's tests, the two samples and the attacks on the grader
# (make validate's solutions/adversarial/, which fill the cores the end-to-end tests leave
# idle), each side's output printed whole when it ends (-O); then make validate grades the
# five assignments' catalogues alone, keeping both cores busy (docs/measuring.md).
test: image lab-image hub-image venv chromium assign  ## the image's test suite, samples and attacks beside the end-to-end tests, then validate
	$(MAKE) -j2 -O test-image test-e2e
	$(MAKE) validate-built ASSIGNMENTS="$(NAMES)"

test-image: image $(NAMES:%=dist/%/.built)  ## pytest inside the grading image (all but tests/e2e), then mutants-sample, variants-sample and the attacks
	$(DOCKER_RUN) $(IMAGE) python -m pytest --ignore=tests/e2e $(PYTEST_ARGS)
	$(MAKE) mutants-sample
	$(MAKE) variants-sample
	$(MAKE) validate-built ASSIGNMENTS=adversarial

test-e2e: venv chromium $(NAMES:%=dist/%/.built)  ## the end-to-end tests, on the host
	$(HOST_PY) -m pytest tests/e2e $(PYTEST_ARGS)

image:  ## build the grading image (the host's CA bundle goes in as a BuildKit secret)
	@ca=$$(bash docker/ca-bundle.sh); \
	docker buildx build --load --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  $${ca:+--secret id=pip_ca,src=$$ca} --target grader -t $(IMAGE) .

lab-image:  ## build the students' image: the grading image plus JupyterLab
	@ca=$$(bash docker/ca-bundle.sh); \
	docker buildx build --load --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  $${ca:+--secret id=pip_ca,src=$$ca} --target lab -t $(LAB_IMAGE) .

hub-image:  ## build the course hub's image: JupyterHub, DockerSpawner, configurable-http-proxy
	@ca=$$(bash docker/ca-bundle.sh); \
	docker buildx build --load --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  $${ca:+--secret id=pip_ca,src=$$ca} --target hub -t $(HUB_IMAGE) .

hub: hub-image lab-image $(NAMES:%=dist/%/.built)  ## a course's JupyterHub on http://127.0.0.1:8000 (docker/hub/), each student a lab container
	HUB_IMAGE=$(HUB_IMAGE) LAB_IMAGE=$(LAB_IMAGE) bash docker/hub.sh start

hub-stop:  ## remove the hub, its students' containers and its network (VOLUMES=1: the students' work too)
	HUB_VOLUMES=$(VOLUMES) bash docker/hub.sh stop

assign: image  ## otter assign into dist/<name>/{student,autograder} (all, or ASSIGNMENTS="...")
	$(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.assign $(ASSIGNMENTS)
	@for n in $(or $(ASSIGNMENTS),$(NAMES)); do [ -d dist/$$n ] && touch dist/$$n/.built; done; true

# dist/<name>/.built: rebuilt only when the master notebook or the project changed.
define built_rule
dist/$(1)/.built: assignments/$(1)/$(1).ipynb $$(PROJECT_SRC) | image
	$$(DOCKER_RUN) $$(IMAGE) python -m autograder.authoring.assign $(1)
	touch $$@
endef
$(foreach n,$(NAMES),$(eval $(call built_rule,$(n))))

config-doc:  ## write docs/configuration.md from the typed configuration (autograder/shared/config.py)
	PYTHONPATH=$(CURDIR) python3 -m autograder.authoring.config_doc

validate: image assign validate-built  ## grade every answer in solutions/ and compare with its stated score and messages

validate-built: image $(NAMES:%=dist/%/.built)  ## make validate without assigning again first
	$(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.validate $(ASSIGNMENTS)

mutants: image $(NAMES:%=dist/%/.built)  ## mutants of ASSIGNMENT's reference answer graded; survivors in dist/mutants/ (SAMPLE=N: N of them)
	$(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.mutants $(ASSIGNMENT) $(if $(SAMPLE),--sample $(SAMPLE))

# CI's fixed sample (make test): MUTANTS_SAMPLE mutants of each assignment, spread over its list; fails on a survivor.
MUTANTS_SAMPLE ?= 6
mutants-sample: image $(NAMES:%=dist/%/.built)  ## MUTANTS_SAMPLE mutants of every assignment graded (what CI runs)
	@for n in $(NAMES); do $(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.mutants $$n --sample $(MUTANTS_SAMPLE) || exit 1; done

variants: image $(NAMES:%=dist/%/.built)  ## valid rewrites of ASSIGNMENT's answer graded; each must keep full marks (report in dist/variants/)
	$(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.variants $(ASSIGNMENT) $(if $(SAMPLE),--sample $(SAMPLE))

# CI's fixed sample (make test), beside mutants-sample: VARIANTS_SAMPLE variants of each assignment; fails on a refusal.
VARIANTS_SAMPLE ?= 1
variants-sample: image $(NAMES:%=dist/%/.built)  ## VARIANTS_SAMPLE variants of every assignment graded (what CI runs)
	@for n in $(NAMES); do $(DOCKER_RUN) $(IMAGE) python -m autograder.authoring.variants $$n --sample $(VARIANTS_SAMPLE) || exit 1; done

bench: venv $(NAMES:%=dist/%/.built)  ## measure grading time, memory and throughput (prints figures)
	$(HOST_PY) -m autograder.host.bench $(BENCH_ARGS)

# The front door: a wrong ASSIGNMENT or SUBMISSIONS gets one sentence before anything is built.
ifneq ($(filter grade k8s similarity,$(MAKECMDGOALS)),)
  ifeq ($(filter $(ASSIGNMENT),$(NAMES)),)
    $(error ASSIGNMENT="$(ASSIGNMENT)" is not an assignment; choose one of: $(NAMES))
  endif
  ifeq ($(strip $(SUBMISSIONS)),)
    $(error SUBMISSIONS is not set; give the folder of .ipynb or .zip files to grade: SUBMISSIONS=<folder>)
  endif
  ifeq ($(wildcard $(SUBMISSIONS)/.),)
    $(error SUBMISSIONS="$(SUBMISSIONS)" is not a folder; give the folder of .ipynb or .zip files to grade)
  endif
  ifeq ($(wildcard $(SUBMISSIONS)/*),)
    $(error SUBMISSIONS="$(SUBMISSIONS)" is empty; put the .ipynb or .zip files to grade in it)
  endif
endif

grade: venv dist/$(ASSIGNMENT)/.built  ## grade a folder: make grade ASSIGNMENT=<name> SUBMISSIONS=<dir> [BACKEND=swarm]
	$(HOST_PY) -m autograder.host.grade $(ASSIGNMENT) $(SUBMISSIONS) --backend $(or $(BACKEND),local) $(GRADE_ARGS)

similarity: venv dist/$(ASSIGNMENT)/.built  ## which answers are copies, without grading: make similarity ASSIGNMENT=<name> SUBMISSIONS=<dir>
	$(HOST_PY) -m autograder.host.similarity $(ASSIGNMENT) $(SUBMISSIONS) $(SIMILARITY_ARGS)

similarity-bench: venv $(NAMES:%=dist/%/.built)  ## time and memory of the similarity report for 500 synthetic submissions (prints figures)
	$(HOST_PY) -m autograder.host.similarity.bench $(BENCH_ARGS)

k8s: venv dist/$(ASSIGNMENT)/.built  ## Kubernetes manifests for a folder: make k8s ASSIGNMENT=<name> SUBMISSIONS=<dir>
	$(HOST_PY) -m autograder.host.k8s render $(ASSIGNMENT) $(SUBMISSIONS) $(K8S_ARGS)

k8s-collect: venv  ## a Kubernetes batch's CSV and report from its pods' logs: make k8s-collect BATCH=<folder>
	$(HOST_PY) -m autograder.host.k8s collect $(BATCH)

lab: lab-image $(NAMES:%=dist/%/.built)  ## JupyterLab for students on http://127.0.0.1:8888: the five student notebooks (dist/lab/)
	bash docker/lab.sh students

authoring-lab: lab-image  ## JupyterLab for authors on http://127.0.0.1:8888 with the repository mounted
	bash docker/lab.sh authors

wheel: image  ## the students' package (autograder, kernels) as dist/wheel/*.whl: pip install "<wheel>[student]"
	$(DOCKER_RUN) $(IMAGE) sh -c 'mkdir /tmp/src && cp -r pyproject.toml autograder kernels /tmp/src && \
	  pip wheel --no-deps --no-build-isolation -q -w dist/wheel /tmp/src'

chromium:  ## Debian's Chromium for the browser tests (apt-get install when it is missing)
	@command -v chromium >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

venv: $(VENV)/.installed  ## the host venv (Otter, python-on-whales) for grading outside the image

$(VENV)/.installed: docker/host-requirements.lock
	python3 -m venv $(VENV)
	ca=$$(bash docker/ca-bundle.sh); $(VENV)/bin/pip install -q --disable-pip-version-check \
	  $${ca:+--cert $$ca} -r docker/host-requirements.lock
	touch $@

lock:  ## re-resolve docker/requirements.in and lab-requirements.in into their locks (in the base image)
	bash docker/lock.sh

host-lock:  ## re-resolve docker/host-requirements.in into docker/host-requirements.lock
	ca=$$(bash docker/ca-bundle.sh); python3 -m venv /tmp/host-lock && \
	  /tmp/host-lock/bin/pip install -q $${ca:+--cert $$ca} -r docker/host-requirements.in
	{ echo "# Generated by make host-lock from host-requirements.in with $$(python3 --version); do not edit."; \
	  /tmp/host-lock/bin/pip freeze --exclude pip; } > docker/host-requirements.lock
