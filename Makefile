# The project's commands, one target each: `make help` lists them. The README's two are
# `make book` and `make test`; CI runs `make test`, then `make check`. The two tiers are pytest
# markers (pyproject.toml), and what `make check` builds reaches the tests as options
# (tests/built.py). Every target sets up .venv first (Python >= 3.11); `make check` also
# installs Debian's chromium and poppler, as root (`make system-deps`).

SHELL  := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
BIN    := .venv/bin
PYTEST := $(BIN)/python -m pytest --no-header
# notebooks execute one per core: sweeps in the kernel, BLAS on one thread (no worker
# process and no BLAS thread waits for the core that the other notebook holds)
ONE_PER_CORE := IBCORE_SWEEP_JOBS=1 OPENBLAS_NUM_THREADS=1
# Jupyter Book's strict build: a warning fails it, and every reference must resolve
BUILD  := $(ONE_PER_CORE) $(BIN)/jupyter-book build . -W -n --keep-going -q
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONHASHSEED := 0
# builds draw every explorer frame, so the static site stays explorable; no progress bars,
# whose timings would differ between two executions
export IBCORE_STATIC_WIDGETS := 1
export IBCORE_PROGRESS := 0

.PHONY: help setup book student pdf homework notebooks format test check chapters launch \
        system-deps linkcheck bench mutate clean

help:  ## this list
	@awk -F ':.*## ' '/^[a-z-]+:.*## /{printf "make %-12s %s\n", $$1, $$2}' Makefile

# ---------------------------------------------------------------- set-up
setup: .venv/.installed  ## .venv with the pinned packages (every target does it first)
.venv/.installed: requirements.txt requirements-dev.txt pyproject.toml tools/ipython_kernel_config.py
	test -x $(BIN)/python || $(PYTHON) -m venv .venv
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	mkdir -p .venv/etc/ipython && cp tools/ipython_kernel_config.py .venv/etc/ipython/
	touch $@

system-deps: setup  ## Debian's chromium-headless-shell and poppler-utils (as root); axe-core
	command -v pdftotext >/dev/null && $(BIN)/python -c "import tools.browser as b; assert b.chromium_executable()" \
	  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell poppler-utils; }
	$(BIN)/python -m tools.vendor --tests

# ---------------------------------------------------------------- the book
# MathJax and the widget manager come from npm into the site (tools/vendor.py); the chapters
# missing from the execution cache run one per CPU before Sphinx reads them (tools/parallel_execution.py)
book: setup  ## the website, every chapter executed, into _build/html
	$(BIN)/python -m tools.vendor
	$(BUILD)

# the same sources and executions; tools/sphinx_editions.py removes the solutions
student: book  ## the student edition into _build/student
	$(BIN)/python -m tools.notebooks student-config _build/student_config.yml >/dev/null
	$(BUILD) --config _build/student_config.yml --path-output _build/student_build >/dev/null
	rm -rf _build/student && mv _build/student_build/_build/html _build/student

# each built site printed by headless Chromium (tools/pdf.py)
pdf: student system-deps  ## both print editions into _build/pdf
	$(BIN)/python -m tools.pdf instructor _build/html _build/pdf
	$(BIN)/python -m tools.pdf student _build/student _build/pdf

# otter assign builds each set (homework/*.md) into _build/homework/<set>/{student,autograder},
# grades its instructor notebook to full marks, and refreshes student/homework/ (commit it)
homework: setup  ## the problem sets through otter into _build/homework; refreshes student/homework
	$(BIN)/python -m tools.homework build --out _build/homework --sync

notebooks: setup  ## the paired .ipynb regenerated from the .md chapters
	$(BIN)/python -m tools.notebooks sync

format: setup  ## the chapters' code cells formatted by ruff
	$(BIN)/python -m tools.format_cells

linkcheck: setup  ## the book's external links (network)
	$(BIN)/python -m tools.notebooks instructor-config _build/linkcheck_config.yml >/dev/null
	$(BUILD) --builder linkcheck --config _build/linkcheck_config.yml --path-output _build/linkcheck

# ---------------------------------------------------------------- the fast tier
test: setup  ## the fast tier: lint, unit tests, the book's structure, doctests (about a minute)
	$(BIN)/ruff check ibcore tools tests benchmarks conftest.py
	$(PYTEST) -n 2 tests --doctest-modules ibcore

# ---------------------------------------------------------------- the slow tier
check: system-deps book student pdf chapters  ## the slow tier: builds, chapters twice, browser, PDFs, grading, Colab
	$(BIN)/python -m tools.homework build --out _build/homework --no-run-tests
	$(PYTEST) -m slow tests --site _build/html --student-site _build/student --pdf _build/pdf \
	  --homework _build/homework --figure-report _build/figures.jsonl

# every chapter executed a second time, compared cell by cell with the build's execution, from
# an empty sweep cache; the kernels write a legend check of every figure (tests/test_figures.py)
chapters: book  ## every chapter executed again by nbval, compared with the build
	rm -rf _build/nbval-sweep-cache _build/figures.jsonl
	IBCORE_CACHE=$(CURDIR)/_build/nbval-sweep-cache IBCORE_FIGURE_REPORT=$(CURDIR)/_build/figures.jsonl \
	  $(ONE_PER_CORE) $(PYTEST) book --nbval --nbval-current-env --nbval-cell-timeout=900 \
	  --nbval-myst-reference=_build/.jupyter_cache -n 2 --dist loadfile

launch: setup  ## the pins on the lowest Python; chapters in a Colab-like venv
	$(PYTEST) -m slow tests/launch

# ---------------------------------------------------------------- measurements, not checks
bench: setup  ## the benchmarks, as ratios; writes benchmarks/README.md's table
	cd benchmarks && PYTHONPATH=$(CURDIR) ../$(BIN)/python -m pytest -p no:xdist . --write-table README.md

# mutation testing of the modules of [tool.mutmut] (pyproject.toml), or of MUTANTS="ibcore.relu.gd.*"
mutate: setup  ## mutation testing (about 2 h from scratch); writes tests/README.md's table
	$(ONE_PER_CORE) nice -n 19 $(BIN)/mutmut run --max-children 2 $(MUTANTS)
	$(BIN)/python -m tests.mutation_scores --write

clean:  ## remove what the builds and tests wrote
	rm -rf _build .pytest_cache .benchmarks .venv-colab
