# Inside nn.Module: the single entry point for building and testing the book.
#   make book     create .venv, install the pinned requirements, build _build/html
#   make test     everything CI checks
# See README.md for the other targets.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
NB ?= $(NOTEBOOKS)
PORT ?= 8000
JB_FLAGS := --builder html -n -W --keep-going
CHROMIUM ?= /usr/bin/chromium

.PHONY: book test execute serve bench clean lint nbval checks site workflows help

help:
	@sed -n '1,6p' Makefile

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build . $(JB_FLAGS)

execute: $(STAMP)
	$(BIN)/python tests/execute_notebooks.py $(NB)

serve:
	@test -d _build/html || { echo "no _build/html: run 'make book' first" >&2; exit 1; }
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

lint: $(STAMP)
	$(BIN)/ruff check notebooks tests
	$(BIN)/ruff format --check notebooks tests
	$(BIN)/codespell --skip "mathjax,vendor,*.png,*.bib" --ignore-regex '"image/png": "[^"]*"' README.md book notebooks tests .github

workflows: $(STAMP)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/pre-commit validate-config .pre-commit-config.yaml

checks: $(STAMP)
	$(BIN)/pytest -q tests --ignore=tests/test_site.py -p no:cacheprovider

nbval: $(STAMP)
	$(BIN)/pytest -q --nbval $(NB) --sanitize-with tests/sanitize.cfg -n 2 --dist loadscope -p no:cacheprovider

site: book
	$(BIN)/pytest -q tests/test_site.py

test: lint workflows checks nbval site

bench: $(STAMP)
	$(BIN)/python tests/bench.py

clean:
	rm -rf _build .pytest_cache .ruff_cache
