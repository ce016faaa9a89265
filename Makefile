# Everything runs from the project's own virtual environment in .venv/.
# `make notebooks` executes the tutorials; `make test` runs the test suite.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Touched after a successful install; older than pyproject.toml means the
# dependencies changed and the venv must be brought up to date.
STAMP := $(VENV)/.installed

.PHONY: venv test test-long notebooks full docs book image data lab benchmark clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

# -q keeps pytest's summary line as the last line of output (CI reads it);
# the 15 slowest tests are listed above it, since the suite must stay under
# 20 minutes on CI's 2 cores. Two pytest processes (pytest-xdist) share them:
# one test alone leaves a core idle most of the time (a notebook's kernel, a
# GnuGo game, a small network's steps). The notebooks' executions run in
# one of them, in order (their xdist_group: they share run folders), while the
# other takes the rest. TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= 2
test: venv
	$(BIN)/python -m pytest -q --durations=15 -n $(TEST_WORKERS) --dist loadgroup -m "not long"

# The tests of minutes each that make test leaves out (marked `long`): notebook 01
# from the installed wheel, the book built and opened in Chromium, and the
# container image's GTP game and notebook (those two skip without podman and
# the image: make image). Run before a release or a change to what they cover.
test-long: venv
	$(BIN)/python -m pytest -q --durations=15 -m long

# jupyter from the venv runs the `python3` kernel on the venv's own python
# (the venv's kernelspec comes first and its "python" is the running interpreter).
# Coalescing the stream outputs after execution keeps each progress bar's last
# state only (a full-mode notebook 01 is 11 MB of Keras progress updates without);
# TensorFlow's native start-up lines are dropped, and the outputs cleaned: paths
# relative to the repository, no ANSI codes, each progress bar as its last line
# (mockgo/notebook_export.py says why).
EXECUTE := $(BIN)/jupyter nbconvert --to notebook --execute \
	--ExecutePreprocessor.kernel_name=python3 \
	--NotebookExporter.preprocessors=nbconvert.preprocessors.CoalesceStreamsPreprocessor \
	--NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines \
	--NotebookExporter.preprocessors=mockgo.notebook_export.CleanOutputs \
	--CleanOutputs.root=$(CURDIR)

notebooks: venv data
	MOCKGO_QUICK=1 $(EXECUTE) --output-dir build/notebooks notebooks/*.ipynb

# One notebook in full mode, e.g. `make full NOTEBOOK=01_supervised`: hours;
# run it again after an interruption and it goes on where it stopped.
NOTEBOOK ?= 01_supervised
full: venv data
	MOCKGO_QUICK=0 $(EXECUTE) --ExecutePreprocessor.timeout=-1 --output-dir build/notebooks \
		notebooks/$(NOTEBOOK).ipynb

# The executed full-mode notebooks to read without running them, with their
# outputs and plots, in docs/notebooks/ (committed; each names the date and
# machine it ran on). Hours the first time; once runs/ holds the full runs,
# each notebook resumes from them and this takes minutes. `make docs
# DOCS="03_policy_gradient 05_arena"` executes only those.
DOCS ?= $(sort $(wildcard notebooks/*.ipynb))
docs: venv data
	MOCKGO_QUICK=0 $(EXECUTE) --ExecutePreprocessor.timeout=-1 --output-dir docs/notebooks \
		$(patsubst %,notebooks/%.ipynb,$(basename $(notdir $(DOCS))))

# The series as one static site in build/book/ (open build/book/index.html): the
# executed notebooks of docs/notebooks/ (not executed again), the pages of docs/ and
# the API reference made from the docstrings, as a Jupyter Book (docs/_config.yml,
# docs/_toc.yml; docs/install.md says why). Strict: a warning (a broken link or
# reference, a public name without a docstring) fails the build. Every page is
# built again each time (--all): the reference comes from the code, which Sphinx
# does not watch. Minutes: tests/test_book.py measures it.
BOOK_WORK := build/book-work
book: venv
	$(BIN)/jupyter-book build docs --all --path-output $(BOOK_WORK) --keep-going -W -n
	rm -rf build/book && cp -r $(BOOK_WORK)/_build/html build/book
	@echo "the site: build/book/index.html"

# A container image of mockgo, installed from its wheel (Containerfile), built
# without a registry: the base is Debian bookworm made by debootstrap and
# imported into podman (once; `podman rmi localhost/mockgo-base:bookworm` makes
# it again). Needs root; installs debootstrap, podman and runc when missing.
# podman runs containers through Debian's runc (crun refuses a machine whose
# cgroups are v1 and v2 at once), with the limits given: podman's default
# open-files limit is above what such a machine lets a process have.
# docs/cluster.md says how Ray's workers run in it; tests/test_image.py uses it.
PODMAN := podman --runtime runc
PODMAN_LIMITS := --ulimit nofile=16384:16384 --ulimit nproc=16384:16384
IMAGE ?= localhost/mockgo:latest
BASE_IMAGE := localhost/mockgo-base:bookworm
DEBIAN_MIRROR ?= http://deb.debian.org/debian
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# PIP_CERT (from the environment, as pip reads it): the certificate bundle of a
# machine behind a proxy that signs TLS; the image's pip gets it too.
PIP_CERT ?=
image: venv
	@missing=""; for tool in debootstrap podman runc; do \
		command -v $$tool >/dev/null 2>&1 || [ -x /usr/sbin/$$tool ] || missing="$$missing $$tool"; \
	done; [ -z "$$missing" ] || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; }
	$(PODMAN) image exists $(BASE_IMAGE) || { \
		rm -rf build/image/rootfs && mkdir -p build/image && \
		$(SUDO) debootstrap --variant=minbase bookworm build/image/rootfs $(DEBIAN_MIRROR) && \
		$(SUDO) tar -C build/image/rootfs -c . | $(PODMAN) import - $(BASE_IMAGE) && \
		$(SUDO) rm -rf build/image/rootfs; }
	rm -rf build/image/dist
	$(BIN)/python -m build --wheel --outdir build/image/dist .
	$(PODMAN) build $(PODMAN_LIMITS) --network host -f Containerfile -t $(IMAGE) \
		$(if $(PIP_CERT),--volume $(PIP_CERT):/etc/pip-cert.pem:ro --build-arg PIP_CERT=/etc/pip-cert.pem) \
		build/image
	@echo "the image: $(IMAGE) ($(PODMAN) run --rm -it $(PODMAN_LIMITS) $(IMAGE) mockgo --help)"

data:
	bash data/download.sh

lab: venv
	$(BIN)/jupyter lab notebooks/

benchmark: venv
	$(BIN)/python benchmarks/board.py --size 9 --seconds 5
	$(BIN)/python benchmarks/board.py --size 19 --seconds 5

# Leaves .venv/ and the downloaded data/kgs/ alone: both are slow to rebuild.
clean:
	rm -rf build .pytest_cache *.egg-info
	find . -path ./$(VENV) -prune -o -path ./data/kgs -prune -o \
		\( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -prune -exec rm -rf {} + -o \
		\( -name '*.nbi' -o -name '*.nbc' \) -type f -exec rm -f {} +
