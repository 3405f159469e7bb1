# The two commands of the README: `make run` and `make test`. Each builds the virtual
# environment it needs from pyproject.toml first, so a fresh clone needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: run test check bench conformance clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/python bot.py

test: $(STAMP)
	bash scripts/check.sh

bench: $(STAMP)
	$(VENV)/bin/python -m bench

# The rules conformance suite, with every rule id and what covers it.
conformance: $(STAMP)
	$(VENV)/bin/python -m conformance tests/scenarios --coverage

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
