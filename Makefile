# The two commands of the README:
#   make book   set up .venv, execute every chapter, build the site into _build/html
#   make test   set up, then every stage of TEST_STAGES, two at a time (JOBS): ibcore's
#               unit tests; the strict book build; every chapter through nbval (compared
#               with the build); the student edition; the PDFs; the checks of both sites
#               and PDFs (HTML, headless Chromium, accessibility)
# Both need only Python >= 3.11 on the machine (pyproject.toml's requires-python), and root,
# or Debian's chromium and poppler-utils already installed, for the browser and PDF checks.
# `make test` also takes a CPython 3.13, Colab's Python, for its Colab-like stage when it finds one.
#
# Every target names what it needs, so any of them runs alone or under `make -jN`:
#
#   .venv ─┬─ unit
#          ├─ site ──┬─ chapters (with nbval, which runs alongside the build)
#          │         ├─ site-check ─────── (+ chromium)
#          │         ├─ student ─┬─ student-check (+ chromium)
#          │         │           └─ pdf-student ─┐
#          │         └─ pdf ─────────────────────┴─ pdf-check
#          └─ chromium (Debian's chromium and poppler-utils; axe-core)
#
# A new test stage is a target that names its needs and appends itself to TEST_STAGES.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
JOBS   ?= 2
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST := $(BIN)/python -m pytest --no-header
# nbval kernels and myst-nb's executor start `python`: make it the venv's
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONHASHSEED := 0
# explorers render precomputed frames in builds, so the static site stays explorable
export IBCORE_STATIC_WIDGETS := 1
# ...and no progress bars: their timing text would differ between executions
export IBCORE_PROGRESS := 0

# `run NAME, WHAT, COMMANDS`: a stage. It says what it does, prefixes every line of its output
# with [NAME] (stages run side by side), and ends with its duration and the CPU time (user +
# system) of its commands, which a busy machine inflates less. That CPU time counts the
# processes the stage waited for: not Chromium's renderers, which outlive their parent when
# the browser closes, so it is far below the truth for the browser and PDF stages. No commas
# in COMMANDS.
run = { echo "==> $(2)"; start=$$(date +%s); t=$$(mktemp); { $(3); } && times > $$t \
      && echo "<== done in $$(( $$(date +%s) - start )) s ($$($(call cpu,$$t)))"; s=$$?; rm -f $$t; exit $$s; } \
      2>&1 | sed -u 's/^/[$(1)] /'
# `cpu FILE`: the user + system time of a shell's children, from the output of `times` in FILE
cpu = awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($$i, p, "m"); s[i] = p[1] * 60 + p[2] } \
      printf "%.0f s of CPU", s[1] + s[2] }' $(1)
# `busy`: the CPU seconds every process of the machine has used since it booted (Linux's
# /proc/stat; empty elsewhere). make test's summary reports its growth over the run: unlike
# the stages' CPU figures it counts Chromium's renderers, and also anything else running,
# which tells a run slowed by a busy machine from a slow run.
busy = awk -v hz=$$(getconf CLK_TCK) '/^cpu / { printf "%.0f", ($$2 + $$3 + $$4 + $$7 + $$8 + $$9) / hz }' /proc/stat 2>/dev/null
# `quietly LOG, COMMAND`: run COMMAND with its output in LOG, shown only if it fails
quietly = mkdir -p $(dir $(1)) && { $(2); } > $(1) 2>&1 || { cat $(1); echo "failed: see $(1)"; exit 1; }

# order, for two at a time: the two executions of the chapters (which need the build), then
# the checks of the two sites, the longest stages (see the end of this file), then the rest
TEST_STAGES := chapters student-check site-check pdf-check unit

# `make test` runs the quick set-up targets (vendor, chromium) before the stages and then
# leaves them out of the graph (SET_UP=done): otherwise, while one runs in a slot, make
# hands the other slot to a stage that needs only .venv (unit, launch), and the two
# executions of the chapters, the longest path, start minutes late. Alone, a target sets
# itself up as before.
VENDOR   := $(if $(SET_UP),,vendor)
CHROMIUM := $(if $(SET_UP),,chromium)

.PHONY: help book test test-stages unit site chapters nbval student pdf pdf-student site-check \
        student-check pdf-check chromium vendor notebooks format bench clean homework homework-check

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

# ---------------------------------------------------------------- set-up
# pip's warnings about the machine's extra package folders that lack a package are benign
$(STAMP): requirements.txt requirements-dev.txt pyproject.toml tools/ipython_kernel_config.py
	@echo "==> set-up: Python packages into .venv (about 2 min the first time)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet -r requirements-dev.txt 2>&1 \
	  | { grep -v "^WARNING: Location '.*' is ignored: it is neither a file nor a directory" || true; }
	@mkdir -p $(VENV)/etc/ipython && cp tools/ipython_kernel_config.py $(VENV)/etc/ipython/
	@touch $(STAMP)

# site assets, and an execution cache that forgets chapters run with an older ibcore
vendor: $(STAMP)
	@$(BIN)/python -m tools.vendor
	@$(BIN)/python -m tools.cache_guard _build

# the browser and PDF checks use Debian's chromium and poppler-utils: install them when
# we can (CI runs as root); axe-core, for the accessibility audit, comes from npm
chromium: $(STAMP)
	@command -v chromium >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "==> set-up: Debian's chromium and poppler-utils for the browser and PDF checks"; \
	    $(call quietly,_build/logs/apt.log,apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq chromium poppler-utils); \
	  else echo "chromium or pdftotext is missing: apt-get install chromium poppler-utils, or set IB_SKIP_BROWSER=1"; fi; }
	@$(BIN)/python -m tools.vendor --tests

# ---------------------------------------------------------------- builds
site: $(VENDOR)
	@$(call run,site,the book with every chapter executed into _build/html (minutes; seconds when cached),\
	  $(BIN)/python -m tools.build_book)

book: site
	@echo "The book is built. Open: file://$(CURDIR)/_build/html/index.html"

# the student edition: same sources and execution cache (filled by `site`), solutions removed
student: site
	@$(call run,student,the student edition into _build/student,\
	  $(BIN)/python -m tools.notebooks student-config _build/student_config.yml >/dev/null \
	  && $(BIN)/python -m tools.build_book --config _build/student_config.yml --out _build/student_build/html \
	  && rm -rf _build/student && mv _build/student_build/html _build/student)

# the print editions, printed from the built sites by Debian's chromium
pdf: site $(CHROMIUM)
	@$(call run,pdf,the instructor edition printed into _build/pdf,\
	  $(BIN)/python -m tools.pdf instructor _build/html _build/pdf)

pdf-student: student $(CHROMIUM)
	@$(call run,pdf-student,the student edition printed into _build/pdf,\
	  $(BIN)/python -m tools.pdf student _build/student _build/pdf)

notebooks: $(STAMP)
	$(BIN)/python -m tools.notebooks sync

# the code cells of the chapters and problem sets, formatted by ruff (88 columns)
format: $(STAMP)
	$(BIN)/python -m tools.format_cells

# ---------------------------------------------------------------- tests
# two stages at a time, unless the caller gave -j (then its job server decides)
test: $(STAMP)
	@start=$$(date +%s); t=$$(mktemp); b0=$$($(busy)); \
	$(MAKE) --no-print-directory vendor chromium \
	  && $(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS)) SET_UP=done test-stages \
	  && times > $$t && wall=$$(( $$(date +%s) - start )) \
	  && echo "==> make test: every stage passed ($(TEST_STAGES)) in $$wall s ($$($(call cpu,$$t)))" \
	  && { b1=$$($(busy)); cores=$$(getconf _NPROCESSORS_ONLN); [ -z "$$b0" ] || [ -z "$$b1" ] || [ "$$wall" -eq 0 ] \
	       || echo "    the machine's $$cores cores were busy for $$(( b1 - b0 )) s of their $$(( cores * wall )) s" \
	               "($$(( 100 * (b1 - b0) / (cores * wall) ))%), counting every process: Chromium's and any other user's"; }; \
	s=$$?; rm -f $$t; exit $$s

# the tests of what the other stages build (they skip when it is missing): theirs, not unit's
BUILT_TESTS := tests/homework/test_grading.py tests/homework/test_site.py

unit: $(STAMP)
	@$(call run,unit,ibcore's unit tests; the book's structure; generated notebooks in sync,\
	  $(PYTEST) tests --ignore=tests/site --ignore=tests/test_figures.py $(patsubst %,--ignore=%,$(BUILT_TESTS)))

# every chapter through nbval, compared with the build's execution (same numbers twice);
# with an empty sweep cache, so that the second execution recomputes every trial; every
# figure displayed is checked for legends over data (tests/test_figures.py reads the report).
# Under make -j the two executions run side by side: nbval waits for the build to execute
# each chapter (tests/nbval_myst.py), so `nbval` alone needs a build running or done.
chapters: site nbval

nbval: $(VENDOR)
	@$(call run,chapters,every chapter executed again by nbval (alongside the build) and compared with it,\
	  rm -rf _build/nbval-sweep-cache _build/figures.jsonl \
	  && IBCORE_CACHE=$(CURDIR)/_build/nbval-sweep-cache IBCORE_FIGURE_REPORT=$(CURDIR)/_build/figures.jsonl \
	  $(PYTEST) book tests/test_figures.py --nbval-myst-reference=_build/.jupyter_cache --nbval-myst-wait=3600)

# the built sites and PDFs: HTML, headless Chromium, accessibility (axe-core), print
SITE_TESTS := IB_SITE=_build/html IB_STUDENT_SITE=_build/student IB_PDF=_build/pdf $(PYTEST) tests/site

site-check: site $(CHROMIUM)
	@$(call run,site-check,the instructor site: HTML; Chromium; accessibility in both themes; keyboard,\
	  $(SITE_TESTS) --ignore=tests/site/test_pdf.py -k "not student")

student-check: site student $(CHROMIUM)
	@$(call run,student-check,the student site: no solutions; accessibility in both themes,\
	  $(SITE_TESTS) --ignore=tests/site/test_pdf.py -k "student")

pdf-check: site student pdf pdf-student
	@$(call run,pdf-check,both PDFs: titles; typeset maths; figures; solutions,\
	  $(SITE_TESTS)/test_pdf.py)

# the problem sets (homework/*.md) through `otter assign`: _build/homework/<set>/{student,autograder}
# in otter's layout, each instructor notebook graded to full marks by otter on the way; then the
# student copies that Colab and Binder open are refreshed in student/homework/ (commit them)
homework: $(STAMP)
	@$(call run,homework,the problem sets through otter assign into _build/homework,\
	  $(BIN)/python -m tools.homework build --out _build/homework --sync)

# the grading proofs on a fresh build (student/homework/ is compared with it, not rewritten; the
# tests grade the instructor notebook themselves), and the sets' links and files on both editions
TEST_STAGES += homework-check
homework-check: $(STAMP) site student
	@$(call run,homework-check,the problem sets: graded by otter; student files free of solutions,\
	  $(BIN)/python -m tools.homework build --out _build/homework --no-run-tests \
	  && IB_HOMEWORK=_build/homework IB_SITE=_build/html IB_STUDENT_SITE=_build/student $(PYTEST) tests/homework)

bench: $(STAMP)
	cd benchmarks && PYTHONPATH=$(CURDIR) ../$(BIN)/python -m pytest -p no:xdist .

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
TEST_STAGES += launch

launch: launch-pins launch-colab

launch-pins: _build/launch/pins.ok

_build/launch/pins.ok: $(STAMP) requirements.txt requirements-dev.txt pyproject.toml tests/launch/test_pins.py
	@$(call run,launch-pins,the pins resolve for the lowest supported Python,\
	  $(LAUNCH_TEST) -q tests/launch/test_pins.py && mkdir -p $(@D) && touch $@)

launch-colab: $(STAMP)
	@$(call run,launch-colab,the prologue and one chapter per part in a Colab-like venv,\
	  $(BIN)/python -m tests.launch.colab_env build $(COLAB_VENV) && $(LAUNCH_TEST) -q tests/launch/test_colab.py)

# Under make test, every stage after the build waits for the student edition too (10 s).
# make walks the stages in the order of TEST_STAGES and, at each one it can start, waits
# for a free slot for it before walking on; a stage that becomes ready behind that point
# waits for the next walk. So the student site's check, one of the two longest stages,
# used to start only after every other one and end the run alone (measured: its last 29 s
# of a 452 s run). Now nothing is ready while the student edition is built, and the walk
# that follows starts its check first.
ifdef SET_UP
site-check unit _build/launch/pins.ok launch-colab pdf: | student
endif

# last, so that it sees every stage appended to TEST_STAGES above (prerequisites expand when read)
test-stages: $(TEST_STAGES)
