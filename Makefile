# One place for every command of the platform. `make help` lists them.
IMAGE ?= jax-interop-grader:latest
BASE_IMAGE ?= debian:trixie-slim
DOCKER_RUN = docker run --rm --network none -v "$(CURDIR):/repo" -w /repo \
             -e PYTHONPATH=/repo -e JAX_INTEROP_KERNEL_CACHE=/tmp/kernel-cache
PYTEST_ARGS ?=
# The instructor's side (otter grade, make grade, host tests) runs in a venv on the host.
VENV := .venv
HOST_PY := PYTHONPATH=$(CURDIR) $(VENV)/bin/python

.PHONY: help image lock test lab demo assign validate venv grade

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

image:  ## build the grading image (the host's CA bundle goes in as a BuildKit secret)
	@ca=$$(bash docker/ca-bundle.sh); \
	docker buildx build --load --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  $${ca:+--secret id=pip_ca,src=$$ca} -t $(IMAGE) .

lock:  ## re-resolve docker/requirements.in into docker/requirements.lock
	bash docker/lock.sh

test: image  ## build the image if needed, run the test suite inside it, then validate the assignments
	$(DOCKER_RUN) $(IMAGE) python -m pytest $(PYTEST_ARGS)
	$(MAKE) validate

# JupyterLab runs unprivileged: as your own uid, or as `student` (uid 1000) when make runs as root.
LAB_UID ?= $(shell u=$$(id -u); [ "$$u" = 0 ] && echo 1000:1000 || echo $$u:$$(id -g))

lab: image  ## JupyterLab from the image on http://localhost:8888 with the repository mounted
	docker run --rm -it -p 127.0.0.1:8888:8888 --user $(LAB_UID) -e HOME=/tmp/home \
	  -v "$(CURDIR):/home/student/work" -w /home/student/work $(IMAGE) \
	  jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --IdentityProvider.token=''

demo: image  ## the platform's main job (for now: build the image and run the kernels' demo)
	$(DOCKER_RUN) $(IMAGE) python -m kernels.demo

assign: image  ## otter assign all five assignments into dist/<name>/{student,autograder}
	$(DOCKER_RUN) $(IMAGE) python -m autograder.assign $(ASSIGNMENTS)

validate: assign  ## grade every answer in solutions/ and compare with its stated score and messages
	$(DOCKER_RUN) $(IMAGE) python -m autograder.validate $(ASSIGNMENTS)

$(VENV)/.installed: docker/host-requirements.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r docker/host-requirements.lock
	touch $@

venv: $(VENV)/.installed  ## the host venv (Otter, python-on-whales) for grading outside the image

# dist/<name>/.built: rebuilt only when the master notebook or the project changed.
NAMES := reduce_sum_rules gammaln_callback silu_ffi ffi_lowering pure_callback_doubler
PROJECT_SRC := $(wildcard autograder/*.py kernels/*.py kernels/*.cc kernels/*.cpp docker/autograder/*) docker/requirements.lock
define built_rule
dist/$(1)/.built: assignments/$(1)/$(1).ipynb $$(PROJECT_SRC) | image
	$$(DOCKER_RUN) $$(IMAGE) python -m autograder.assign $(1)
	touch $$@
endef
$(foreach n,$(NAMES),$(eval $(call built_rule,$(n))))

grade: dist/$(ASSIGNMENT)/.built venv  ## grade a folder: make grade ASSIGNMENT=<name> SUBMISSIONS=<dir>
	$(HOST_PY) -m autograder.grade $(ASSIGNMENT) $(SUBMISSIONS) $(GRADE_ARGS)
