# Everything runs from the project's own virtual environment in .venv/.
# `make notebooks` executes the tutorials; `make test` runs the test suite.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Touched after a successful install; older than pyproject.toml means the
# dependencies changed and the venv must be brought up to date.
STAMP := $(VENV)/.installed

.PHONY: venv test notebooks data lab benchmark clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

# -q keeps pytest's summary line as the last line of output (CI reads it).
test: venv
	$(BIN)/python -m pytest -q

# jupyter from the venv runs the `python3` kernel on the venv's own python
# (the venv's kernelspec comes first and its "python" is the running interpreter).
notebooks: venv data
	MOCKGO_QUICK=1 $(BIN)/jupyter nbconvert --to notebook --execute \
		--ExecutePreprocessor.kernel_name=python3 \
		notebooks/*.ipynb --output-dir build/notebooks

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
