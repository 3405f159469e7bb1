# The two commands of the README: `make run` and `make test`. Each builds the virtual
# environment it needs from pyproject.toml first, so a fresh clone needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
# The bot's own dependencies only (what `make run` needs), then the development tools on top.
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: run test check bench conformance clean

$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(RUNTIME)
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
