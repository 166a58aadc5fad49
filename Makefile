# The two commands of the README:
#   make book   set up .venv, execute every chapter, build the site into _build/html
#   make test   set up, then every stage of TEST_STAGES, three at a time on two cores (SLOTS)
# Both need only Python >= 3.11 (pyproject.toml's requires-python), and root, or Debian's
# chromium-headless-shell (or chromium) and poppler-utils already installed, for the browser and PDF checks.
# `make test` also takes a CPython 3.13, Colab's Python, for its Colab-like stage when it finds one.
#
# Every target names what it needs, so any of them runs alone or under `make -jN`:
#
#   .venv ─┬─ unit, launch, homework, homework-grader
#          ├─ chromium (Debian's chromium-headless-shell and poppler-utils; axe-core)
#          └─ site ─┬─ chapters (every chapter executed again by nbval, compared with the build)
#                   ├─ site-check ─────── (+ chromium)
#                   ├─ student ─┬─ student-check (+ chromium)
#                   │           ├─ pdf-student ─┐
#                   ├─ pdf ─────┼───────────────┴─ pdf-check
#                   └───────────┴─ homework-check
#
# A new test stage is a target that names its needs, listed in TEST_STAGES.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
JOBS   ?= 2
# stages at once under make test: one more than the cores, so that while one stage waits
# (network, a serial step) or ends alone, both cores still work (issue 23: 598 -> 576 s)
SLOTS  ?= 3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST := $(BIN)/python -m pytest --no-header
# The builds, nbval and the grading checks run a notebook per core: a notebook's sweeps run
# in its kernel (ibcore.sweep's workers would add their start-up, about 1.4 CPU-s a kernel,
# to a busy machine), and its BLAS on one thread (OpenBLAS's threads wait for the core the
# other notebook holds: Part II ch. 1 and 3 side by side, 15-30% faster). The Colab and
# grading-environment checks keep the defaults, every core.
SERIAL_SWEEPS := IBCORE_SWEEP_JOBS=1 OPENBLAS_NUM_THREADS=1
# Jupyter Book's strict build (warnings are errors, references checked), Sphinx's status output off
BUILD  := $(SERIAL_SWEEPS) $(BIN)/jupyter-book build . -W -n --keep-going -q
# nbval kernels and myst-nb's executor start `python`: make it the venv's
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONHASHSEED := 0
# explorers render precomputed frames in builds, so the static site stays explorable
export IBCORE_STATIC_WIDGETS := 1
# ...and no progress bars: their timing text would differ between executions
export IBCORE_PROGRESS := 0

# `run NAME, WHAT, COMMANDS`: a stage. It says what it does and ends with its wall time and
# CPU time (user + system of its processes, bash's `time`). No commas in COMMANDS.
run = echo "==> $(1): $(2)"; TIMEFORMAT="<== $(1): %0R s, %0U+%0S s of CPU"; time { $(3); }
# `quietly LOG, COMMAND`: run COMMAND with its output in LOG, shown only if it fails
quietly = mkdir -p $(dir $(1)) && { $(2); } > $(1) 2>&1 || { cat $(1); echo "failed: see $(1)"; exit 1; }

# The order make starts them in when a slot frees: the two longest first, the chapters' second
# execution (both cores) and the instructor site's check; short ones and the grading
# environment last, so that no long stage runs alone at the end.
TEST_STAGES := chapters site-check homework-check launch student-check unit pdf-check homework-grader

.PHONY: help book test test-stages unit site chapters student pdf pdf-student site-check \
        student-check pdf-check chromium vendor notebooks linkcheck format bench mutate clean homework homework-check \
        homework-grader

help:
	@echo "make book         build the website into _build/html"
	@echo "make test         run every test (unit, chapters, strict build, PDFs, site checks)"
	@echo "make notebooks    regenerate the paired .ipynb from the .md chapters"
	@echo "make format       format the chapters' code cells with ruff (88 columns)"
	@echo "make student      build the student edition into _build/student"
	@echo "make pdf          the print edition, _build/pdf/implicit-bias-executable.pdf (pdf-student: without solutions)"
	@echo "make homework     build the problem sets with otter into _build/homework (and student/homework)"
	@echo "make launch       Binder and Colab checks: pins on the lowest Python, notebooks in a Colab-like venv"
	@echo "make bench        run the benchmark suite (not part of make test)"
	@echo "make linkcheck    check the book's external links (Sphinx's linkcheck; network; not part of make test)"
	@echo "make mutate       mutation testing of the solvers and theory, module by module (slow; not in make test)"

# ---------------------------------------------------------------- set-up
# pip's warnings about the machine's extra package folders that lack a package are benign
$(STAMP): requirements.txt requirements-dev.txt pyproject.toml tools/ipython_kernel_config.py
	@echo "==> set-up: Python packages into .venv (about 2 min the first time)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet -r requirements-dev.txt 2>&1 \
	  | { grep -v "^WARNING: Location '.*' is ignored: it is neither a file nor a directory" || true; }
	@mkdir -p $(VENV)/etc/ipython && cp tools/ipython_kernel_config.py $(VENV)/etc/ipython/
	@touch $(STAMP)

# the site's MathJax and widget manager, from npm (tools/vendor.py)
vendor: $(STAMP)
	@$(BIN)/python -m tools.vendor

# jupyter-cache keys an executed chapter on its code cells only: when ibcore's source is
# newer than the executions, forget them, and Sphinx's saved pages, which would be reused
IBCORE_SOURCES := $(shell find ibcore -name __pycache__ -prune -o -print)
_build/.ibcore-stamp: $(IBCORE_SOURCES)
	@rm -rf _build/.jupyter_cache _build/.doctrees _build/student_build
	@mkdir -p $(@D) && touch $@

# Sphinx does not rewrite an unchanged page when its extensions or templates change:
# forget its saved pages then (the executions stay)
_build/.sphinx-stamp: $(wildcard tools/sphinx_*.py tools/parallel_execution.py _templates/*)
	@rm -rf _build/.doctrees _build/html _build/student_build
	@mkdir -p $(@D) && touch $@

# the browser and PDF checks use Debian's chromium (its headless shell: tools/browser.py) and
# poppler-utils: install them when we can (CI runs as root); axe-core comes from npm
chromium: $(STAMP)
	@command -v chromium-headless-shell >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "==> set-up: Debian's chromium-headless-shell and poppler-utils for the browser and PDF checks"; \
	    $(call quietly,_build/logs/apt.log,apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq chromium-headless-shell poppler-utils); \
	  else echo "chromium-headless-shell or pdftotext is missing: apt-get install chromium-headless-shell poppler-utils, or set IB_SKIP_BROWSER=1"; fi; }
	@$(BIN)/python -m tools.vendor --tests

# ---------------------------------------------------------------- builds
# the chapters missing from the execution cache run one per CPU before Sphinx reads them
# (tools/parallel_execution.py, a Sphinx extension handing them to jupyter-cache)
site: vendor _build/.ibcore-stamp _build/.sphinx-stamp
	@$(call run,site,the book with every chapter executed into _build/html,$(BUILD))

book: site

# the external links, by Sphinx's linkcheck builder (network needed; a broken link fails it),
# into _build/linkcheck/_build/html/output.txt (Jupyter Book would write it into the site)
linkcheck: vendor _build/.ibcore-stamp
	@$(BIN)/python -m tools.notebooks instructor-config _build/linkcheck_config.yml >/dev/null
	$(BUILD) --builder linkcheck --config _build/linkcheck_config.yml --path-output _build/linkcheck

# the student edition: same sources and execution cache (filled by `site`), solutions removed
student: site
	@$(call run,student,the student edition into _build/student,\
	  $(BIN)/python -m tools.notebooks student-config _build/student_config.yml >/dev/null \
	  && $(BUILD) --config _build/student_config.yml --path-output _build/student_build >/dev/null \
	  && rm -rf _build/student && mv _build/student_build/_build/html _build/student)

# the print editions, printed from the built sites by Debian's chromium (tools/pdf.py)
pdf: site chromium
	@$(call run,pdf,the instructor edition printed into _build/pdf,\
	  $(BIN)/python -m tools.pdf instructor _build/html _build/pdf)

pdf-student: student chromium
	@$(call run,pdf-student,the student edition printed into _build/pdf,\
	  $(BIN)/python -m tools.pdf student _build/student _build/pdf)

notebooks: $(STAMP)
	$(BIN)/python -m tools.notebooks sync

# the code cells of the chapters and problem sets, formatted by ruff (88 columns)
format: $(STAMP)
	$(BIN)/python -m tools.format_cells

# ---------------------------------------------------------------- tests
# every stage passes or make test fails; a stage's output is shown as one block when it ends
test: $(STAMP)
	@TIMEFORMAT="<== make test: %0R s, %0U+%0S s of CPU"; \
	time $(MAKE) --no-print-directory -j$(SLOTS) --output-sync=target STAGED=1 test-stages \
	  && echo "==> make test: every stage passed ($(TEST_STAGES))"

# Under make test every stage after the build also waits for the student edition (seconds).
# make hands a free job slot to the next ready target of its walk, and a target that becomes
# ready behind that point waits for the next walk: without this, unit and launch, ready at
# once, took both slots and the build, the longest path, started last (measured in issue 23),
# and the student site's check, one of the longest stages, started last and ran alone.
# unit, which needs nothing built, starts beside the build in the third slot: it takes the
# core that the build's serial Sphinx phase leaves idle.
ifdef STAGED
site-check pdf _build/launch/pins.ok launch-colab: | student
# and the student PDF after the instructor's: one print at a time
pdf-student: | pdf
endif

# the tests of what the other stages build (they skip when it is missing): theirs, not unit's
BUILT_TESTS := tests/homework/test_grading.py tests/homework/test_site.py tests/homework/test_environment.py \
               tests/homework/test_teaching.py

unit: $(STAMP)
	@$(call run,unit,ibcore's unit tests; the book's structure; generated notebooks in sync,\
	  $(PYTEST) tests --ignore=tests/site --ignore=tests/test_figures.py $(patsubst %,--ignore=%,$(BUILT_TESTS)))

# every chapter executed a second time by nbval, JOBS at a time, and compared with the
# build's execution (same numbers twice), with an empty sweep cache so that every trial is
# recomputed; every figure displayed is checked for legends over data (tests/test_figures.py)
NBVAL := --nbval --nbval-current-env --nbval-cell-timeout=900 --nbval-myst-reference=_build/.jupyter_cache
chapters: site
	@$(call run,chapters,every chapter executed again by nbval and compared with the build,\
	  rm -rf _build/nbval-sweep-cache _build/figures.jsonl \
	  && $(SERIAL_SWEEPS) IBCORE_CACHE=$(CURDIR)/_build/nbval-sweep-cache IBCORE_FIGURE_REPORT=$(CURDIR)/_build/figures.jsonl \
	     $(PYTEST) book $(NBVAL) -n $(JOBS) --dist loadfile \
	  && IBCORE_FIGURE_REPORT=$(CURDIR)/_build/figures.jsonl $(PYTEST) -q tests/test_figures.py)

# the built sites and PDFs: HTML, headless Chromium, accessibility (axe-core), print
SITE_TESTS := IB_SITE=_build/html IB_STUDENT_SITE=_build/student IB_PDF=_build/pdf $(PYTEST) tests/site

site-check: site chromium
	@$(call run,site-check,the instructor site: HTML; Chromium; accessibility in both themes; keyboard,\
	  $(SITE_TESTS) --ignore=tests/site/test_pdf.py -k "not student")

student-check: site student chromium
	@$(call run,student-check,the student site: no solutions; accessibility in both themes,\
	  $(SITE_TESTS) --ignore=tests/site/test_pdf.py -k "student")

pdf-check: site student pdf pdf-student
	@$(call run,pdf-check,both PDFs: titles; typeset maths; figures; solutions,\
	  $(SITE_TESTS)/test_pdf.py)

# the problem sets (homework/*.md) through `otter assign`: _build/homework/<set>/{student,autograder}
# in otter's layout (the autograder zip self-contained: ibcore's wheel, the pins), each instructor
# notebook graded to full marks by otter on the way; then the student copies that Colab and
# Binder open are refreshed in student/homework/ (commit them)
homework: $(STAMP)
	@$(call run,homework,the problem sets through otter assign into _build/homework,\
	  $(BIN)/python -m tools.homework build --out _build/homework --sync)

# the tests' build: without otter's grading run (the tests grade) and without the sync
# (student/homework/ is compared with it, not rewritten)
HOMEWORK_INPUTS := $(wildcard homework/*.md) $(wildcard ibcore/*.py ibcore/*/*.py) tools/homework.py \
                   tools/homework_grader.py tools/notebooks.py _config.yml _toc.yml requirements.txt pyproject.toml
_build/homework/.built: $(STAMP) $(HOMEWORK_INPUTS)
	@$(call run,homework,the problem sets through otter assign into _build/homework (for the tests),\
	  $(BIN)/python -m tools.homework build --out _build/homework --no-run-tests && touch $@)

# the grading proofs (seeds; a common mistake; shortcuts; skeletons; no secret in student files;
# the teaching page's commands), and the sets' links and files on both editions
homework-check: _build/homework/.built site student
	@$(call run,homework-check,the problem sets: graded by otter for other seeds; mistakes and shortcuts lose; no solution published,\
	  $(SERIAL_SWEEPS) IB_HOMEWORK=_build/homework IB_SITE=_build/html IB_STUDENT_SITE=_build/student \
	  $(PYTEST) $(filter-out tests/homework/test_environment.py,$(BUILT_TESTS)))

# the grading environment of each set built from its autograder zip alone, as Gradescope builds
# it (setup.sh in a fresh venv; the venv of the pins cached in ~/.cache/ibcore/grader-venv), and
# the instructor and untouched notebooks graded there through the zip's entry point; the times
homework-grader: _build/homework/.built
	@$(call run,homework-grader,each set graded in the environment built from its autograder zip alone,\
	  rm -f _build/homework/grading-times.txt \
	  && IB_HOMEWORK=_build/homework IB_GRADING_TIMES=$(CURDIR)/_build/homework/grading-times.txt \
	  $(PYTEST) tests/homework/test_environment.py && cat _build/homework/grading-times.txt)
ifdef STAGED
homework-grader: | student
endif

bench: $(STAMP)
	cd benchmarks && PYTHONPATH=$(CURDIR) ../$(BIN)/python -m pytest -p no:xdist .

# mutation testing of the solver and theory modules ([tool.mutmut] in pyproject.toml), one
# module at a time and niced: CPU-heavy, not part of make test (tests/test_mutants.py keeps a
# fixed few in unit). Scores per module: python -m tests.mutation_scores (tests/README.md).
MUTATE_MODULES ?= relu.metrics relu.gd relu._iteration relu.reference relu.min_norm relu.orthogonal \
                  relu.perturbation relu.stability relu.gram linear quadratic.odes quadratic.moments \
                  quadratic.reduced quadratic.sgd quadratic.overlap_chain quadratic.order_parameters quadratic.hessian \
                  quadratic.phases quadratic.convergence quadratic.symmetry quadratic.clock
mutate: $(STAMP)
	@for m in $(MUTATE_MODULES); do nice -n 19 $(BIN)/mutmut run --max-children $(JOBS) "ibcore.$$m.*" || exit 1; done
	@$(BIN)/python -m tests.mutation_scores

clean:
	rm -rf _build .pytest_cache .benchmarks

# ---- launch: Binder and Colab as their users meet them (tests/launch/, part of `make test`)
# launch-pins: the pins resolve for the lowest supported Python (pip's resolver, network);
#   it runs again only when a requirements file or pyproject.toml changes.
# launch-colab: .venv-colab holds Colab's versions (tests/launch/colab-versions.txt); the
#   prologue and one chapter per part run there from their launch .ipynb, whose set-up cell
#   installs ibcore from (a snapshot of) this checkout.
COLAB_VENV  := .venv-colab
LAUNCH_TEST := IB_LAUNCH=1 IB_COLAB_VENV=$(CURDIR)/$(COLAB_VENV) $(BIN)/python -m pytest -p no:cacheprovider
.PHONY: launch launch-pins launch-colab

launch: launch-pins launch-colab

launch-pins: _build/launch/pins.ok

_build/launch/pins.ok: $(STAMP) requirements.txt requirements-dev.txt pyproject.toml tests/launch/test_pins.py
	@$(call run,launch-pins,the pins resolve for the lowest supported Python,\
	  $(LAUNCH_TEST) -q tests/launch/test_pins.py && mkdir -p $(@D) && touch $@)

launch-colab: $(STAMP)
	@$(call run,launch-colab,the prologue and one chapter per part in a Colab-like venv,\
	  $(BIN)/python -m tests.launch.colab_env build $(COLAB_VENV) && $(LAUNCH_TEST) -q tests/launch/test_colab.py)

test-stages: $(TEST_STAGES)
