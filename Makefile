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
# The supported torch range, oldest and newest release: `make compat` runs the notebooks on each.
COMPAT_RELEASES := 2.6.0 2.14.1 2.15.0
TORCH ?= $(lastword $(COMPAT_RELEASES))
COMPAT := .compat/torch-$(TORCH)
# What the notebooks import, plus what runs them, at the versions requirements.txt pins.
COMPAT_PINS = $(shell grep -iE '^(numpy|matplotlib|safetensors|nbval|pytest|pytest-xdist|ipykernel|setuptools)==' requirements.txt)
# Every pytest call carries -W error: a warning in our own test run is a failure.
NBVAL_STRICT = $(BIN)/pytest -q -W error -p no:cacheprovider --nbval $(NB) --nbval-sanitize-with tests/sanitize.cfg -n 2 --dist loadscope
RECORDS := _build/records
# `make test` prints each stage's time ("[time] strict nbval: 25.1 s"); the browser tests' line
# also says how many times strict nbval's time they took (budget: 2x, measured by `make bench`).
TIMED := $(BIN)/python tools/timed.py

.PHONY: translations book test execute serve lab live bench clean lint nbval checks site site-tests workflows help browser verified record compat compat-all

help:
	@sed -n '1,6p' Makefile

# The pinned tools, then the book's own package (inside_nn/), editable, so the notebooks, the tests and
# `make lab`/`make live` import the working tree's code.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-build-isolation --no-deps --editable .
	touch $@

# The Korean notebooks, config and toc, generated from the English ones and book/ko (tools/korean.py).
KO_STAMP := _build/ko/.generated
$(KO_STAMP): $(STAMP) $(NOTEBOOKS) $(wildcard book/ko/translations/*.yml) book/ko/overrides.yml $(wildcard book/ko/figures/*.svg) _config.yml _toc.yml tools/korean.py
	$(BIN)/python tools/korean.py build
	touch $@

# Both editions, built side by side (one core each), then the Korean one published under ko/. The
# stamp skips even Sphinx's no-op rebuild (both editions: ~8 CPU-s) when no file the site is made
# from changed since the last build, as in `make test` after `make book`.
BOOK_STAMP := _build/html/.built
# The sources: the files git tracks or would track (generated ones, such as notebooks/ko/, are ignored).
BOOK_SOURCES := $(shell git ls-files --cached --others --exclude-standard book notebooks inside_nn tools 2>/dev/null || find book notebooks inside_nn tools -type f) _config.yml _toc.yml pyproject.toml requirements.txt Makefile
book: $(BOOK_STAMP)
$(BOOK_STAMP): $(STAMP) $(KO_STAMP) $(BOOK_SOURCES)
	$(BIN)/jupyter-book build . --config _build/ko/_config.yml --toc _build/ko/_toc.yml --path-output _build/ko $(JB_FLAGS) & korean=$$!; \
	  $(BIN)/jupyter-book build . $(JB_FLAGS); english=$$?; wait $$korean && test $$english = 0
	$(BIN)/python tools/korean.py publish
	$(BIN)/python tools/wheel.py _build/html/wheels
	$(BIN)/python book/_ext/offline_archive.py _build/html
	touch $@

execute: $(STAMP)
	$(BIN)/python tools/execute_notebooks.py $(NB)

serve:
	@test -d _build/html || { echo "no _build/html: run 'make book' first" >&2; exit 1; }
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# The chapters in JupyterLab (pinned in requirements.txt) from .venv, on 127.0.0.1:8888 (PORT=... to
# choose). A taken port is reported and the next free one used. LAB_ARGS=--no-browser, say, passes on.
# It opens the reader notebooks (book/_ext/reader_notebooks.py: exercises as headings, solutions
# collapsed), made in _build/reader from notebooks/ when these change; a reader's edits there stay
# until then. LAB_DIR=notebooks opens the MyST sources instead (to edit the book).
READER := _build/reader/.generated
LAB_DIR ?= _build/reader/notebooks
$(READER): $(NOTEBOOKS) $(wildcard notebooks/ko/*.ipynb) book/_ext/reader_notebooks.py _toc.yml _config.yml book/references.bib
	$(BIN)/python book/_ext/reader_notebooks.py _build/reader
	touch $@

LAB_PORT = $(if $(filter file,$(origin PORT)),8888,$(PORT))
ALLOW_ROOT = $(if $(filter 0,$(shell id -u)),--allow-root)
lab:
	@test -x $(BIN)/jupyter-lab || { echo "no JupyterLab in $(VENV): run 'make book' first" >&2; exit 1; }
	@$(if $(filter _build/reader/notebooks,$(LAB_DIR)),$(MAKE) -s $(READER))
	$(BIN)/jupyter-lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) --ServerApp.root_dir=$(LAB_DIR) $(ALLOW_ROOT) $(LAB_ARGS)

# The built site with live code: the Live Code button runs the cells in a Jupyter server on 127.0.0.1
# (see book/_ext/live_code.py); the site on PORT, or on a free port when PORT is taken.
live:
	@test -d _build/html || { echo "no _build/html: run 'make book' first" >&2; exit 1; }
	$(BIN)/python book/_ext/live_code.py --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check inside_nn notebooks tests tools book/_ext
	$(BIN)/ruff format --check inside_nn notebooks tests tools book/_ext
	$(BIN)/python tools/shape.py
	$(BIN)/codespell --ignore-words-list coo,entrie --skip "mathjax,thebe,vendor,*.png,*.bib" --ignore-regex '"image/png": "[^"]*"' README.md book inside_nn notebooks tests tools .github

workflows: $(STAMP)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/pre-commit validate-config .pre-commit-config.yaml

# The structure tests, which also test the package: its line coverage (SlipCover, set up in
# pyproject.toml) is printed, and under 90 % fails. SlipCover is imported before pytest sets up its
# assertion rewriting, which pytest reports as a warning about SlipCover's own plugin: that one
# warning is let through, every other warning is an error.
# Stages other than strict nbval leave the nbval plugin out (-p no:nbval): importing it (nbformat's
# schema validators) costs each pytest process about 1.5 s of CPU.
STRUCTURE_TESTS := tests --ignore-glob='tests/test_site*.py' --ignore=tests/test_interactive.py --ignore=tests/test_record.py --ignore=tests/test_inspect_site.py --ignore=tests/test_package_site.py --ignore=tests/test_reader_site.py --ignore=tests/test_korean_site.py
SLIPCOVER_IMPORTED := -W 'ignore:Module already imported so cannot be rewritten; slipcover:pytest.PytestAssertRewriteWarning'
checks: $(STAMP) browser
	@rm -rf _build/coverage && mkdir -p _build/coverage
	@$(TIMED) "structure tests" -- $(BIN)/python -m slipcover -m pytest -q -W error $(SLIPCOVER_IMPORTED) $(STRUCTURE_TESTS) -p no:cacheprovider -p no:nbval -n 2
	@$(BIN)/python tools/coverage_total.py _build/coverage/coverage.json --fail-under 90

nbval: $(STAMP)
	@$(TIMED) "strict nbval" -- $(NBVAL_STRICT)

# A Chromium for the browser tests: the one found by tools/browser.py, else Debian's package (root or
# passwordless sudo), else Playwright's managed browser.
browser: $(STAMP)
	@$(BIN)/python tools/browser.py install

# Every browser test (tests/test_site*.py, tests/test_interactive.py), on 2 workers; each page's checks stay on the worker that loaded it (xdist_group).
SITE_TESTS := $(sort $(wildcard tests/test_site*.py)) $(wildcard tests/test_interactive.py)
SITE_PYTEST = $(BIN)/pytest -q -W error -p no:cacheprovider -p no:nbval -n 2 --dist loadgroup $(SITE_TESTS)
site: book browser
	@$(TIMED) "browser tests" --versus "strict nbval" -- $(SITE_PYTEST)

# The browser tests alone, the site already built: what `make bench` times.
site-tests:
	$(SITE_PYTEST)

# The recorded runs in book/records/ match the notebooks, and every chapter page shows them.
verified: book
	@$(TIMED) "record tests" -- $(BIN)/pytest -q -W error tests/test_record.py tests/test_inspect_site.py tests/test_package_site.py tests/test_reader_site.py tests/test_korean_site.py -p no:cacheprovider -p no:nbval

# Strict nbval on the pinned torch, recorded in book/records/ (NB=... records those notebooks only).
record: $(STAMP)
	@mkdir -p $(RECORDS)
	$(NBVAL_STRICT) --junitxml=$(RECORDS)/strict.xml; status=$$?; \
	  $(BIN)/python tools/record.py $(RECORDS)/strict.xml --mode strict && exit $$status

# Every notebook under lax nbval (asserts and exceptions, not printed text) on TORCH=x.y.z, recorded.
# PIP_CONSTRAINT=/dev/null: a machine-wide pip constraint (some build machines cap torch) must not
# decide which release a compat venv gets.
.compat/torch-%/.installed: requirements.txt pyproject.toml
	test -x .compat/torch-$*/bin/python || $(PYTHON) -m venv .compat/torch-$*
	PIP_CONSTRAINT=/dev/null .compat/torch-$*/bin/python -m pip install --quiet torch==$* $(COMPAT_PINS)
	.compat/torch-$*/bin/python -m pip install --quiet --no-build-isolation --no-deps --editable .
	touch $@

compat: $(COMPAT)/.installed
	@mkdir -p $(RECORDS)
	$(COMPAT)/bin/python -m pytest -q -W error -p no:cacheprovider --nbval-lax --nbval-current-env $(NB) -n 2 --dist loadscope --junitxml=$(RECORDS)/lax-$(TORCH).xml; status=$$?; \
	  $(COMPAT)/bin/python tools/record.py $(RECORDS)/lax-$(TORCH).xml --mode lax && exit $$status

compat-all:
	$(foreach release,$(COMPAT_RELEASES),$(MAKE) compat TORCH=$(release) &&) true

# The long stages need nothing from each other: they run side by side (on 2 cores the browser
# tests' waits for pages and servers, and the structure tests' waits for ranks and timeouts, leave
# room for the others), each printing its output when it ends; the record tests start once the book
# is built (site and verified share that one build), beside whichever stage is still running.
test: lint workflows
	@$(MAKE) --no-print-directory --output-sync=target -j3 checks nbval site verified

translations: $(STAMP)
	$(BIN)/python tools/korean.py status

bench: book
	$(BIN)/python tools/bench.py $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .ruff_cache
