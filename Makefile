# Two entry points, each self-contained on a machine with only Python 3.11+:
#   make demo   - the founding examples
#   make test   - lint, the documentation site, the whole test suite (notebooks and PyTorch
#                 parity included)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The CPU build of PyTorch for the parity tests; PyPI's default torch wheel is a CUDA build.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test bench lint docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.demo: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

# PyTorch first, then the test extras held to it: the ecosystem libraries among them declare
# `torch`, and would otherwise pull in the newest release.
$(VENV)/.test: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q "torch==2.13.0" || \
		$(BIN)/python -m pip install -q --extra-index-url $(TORCH_INDEX) "torch==2.13.0" || \
		echo "WARNING: torch==2.13.0 could not be installed; the parity tests will be skipped"
	echo "torch==2.13.0" > $(VENV)/constraints.txt
	$(BIN)/python -m pip install -q -c $(VENV)/constraints.txt -e ".[test]"
	touch $@

# The documentation tools at the versions pinned in the `docs` extra.
$(VENV)/.docs: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $@

demo: $(VENV)/.demo
	$(BIN)/python -m autograd_compat

lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# mkdocs.yml: the site goes to build/site (ignored); --strict fails on a broken link or anchor.
docs: $(VENV)/.docs
	$(BIN)/mkdocs build --strict

test: $(VENV)/.test lint docs
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(VENV)/.test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV)
