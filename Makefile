# The two commands of the README:
#   make book   set up .venv, execute every chapter, build the site into _build/html
#   make test   set up .venv, run ibcore's unit tests, the strict book build, every
#               chapter through nbval (compared with the build), the student edition,
#               and the checks of both built sites (HTML and headless Chromium)
# Both need only Python >= 3.11 on the machine (pyproject.toml's requires-python); `make test`
# also takes a CPython 3.13, Colab's Python, for its Colab-like stage when it finds one.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JB     := $(BIN)/jupyter-book build . -W -n --keep-going
# nbval kernels and myst-nb's executor start `python`: make it the venv's
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONHASHSEED := 0
# explorers render precomputed frames in builds, so the static site stays explorable
export IBCORE_STATIC_WIDGETS := 1
# ...and no progress bars: their timing text would differ between executions
export IBCORE_PROGRESS := 0

.PHONY: book test unit chapters site site-check notebooks student bench clean help vendor chromium
.PHONY: homework homework-check

help:
	@echo "make book      build the website into _build/html"
	@echo "make test      run every test (unit, chapters, strict build, site checks)"
	@echo "make notebooks regenerate the paired .ipynb from the .md chapters"
	@echo "make student   build the student edition into _build/student"
	@echo "make homework  build the problem sets with otter into _build/homework (and student/homework)"
	@echo "make bench     run the benchmark suite (not part of make test)"
	@echo "make launch    Binder and Colab checks: pins on the lowest Python, notebooks in a Colab-like venv"

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# site assets, and an execution cache that forgets chapters run with an older ibcore
vendor: $(STAMP)
	$(BIN)/python -m tools.vendor
	$(BIN)/python -m tools.cache_guard _build

book: $(STAMP) vendor
	$(JB)
	@echo
	@echo "The book is built. Open: file://$(CURDIR)/_build/html/index.html"

notebooks: $(STAMP)
	$(BIN)/python -m tools.notebooks sync

unit: $(STAMP)
	$(BIN)/python -m tools.notebooks check
	$(BIN)/python -m pytest tests --ignore=tests/site

# every chapter through nbval, compared with the build's execution (same numbers twice);
# with an empty sweep cache, so that the second execution recomputes every trial
chapters: $(STAMP)
	rm -rf _build/nbval-sweep-cache
	IBCORE_CACHE=$(CURDIR)/_build/nbval-sweep-cache $(BIN)/python -m pytest book --nbval-myst-reference=_build/.jupyter_cache

site: $(STAMP) vendor
	$(JB)

site-check: $(STAMP) chromium
	IB_SITE=_build/html IB_STUDENT_SITE=_build/student $(BIN)/python -m pytest tests/site

# the browser tests use Debian's chromium; install it when we can (CI runs as root)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: apt-get install chromium, or set IB_SKIP_BROWSER=1"; fi; }

test: unit site chapters student site-check homework-check

# the student edition: same sources and execution cache, solutions removed
student: $(STAMP) vendor
	$(BIN)/python -m tools.notebooks student-config _build/student_config.yml
	$(BIN)/jupyter-book build . -W -n --keep-going --config _build/student_config.yml --path-output _build/student_build
	rm -rf _build/student && mv _build/student_build/_build/html _build/student && rm -rf _build/student_build
	@echo "Student edition: file://$(CURDIR)/_build/student/index.html"

# the problem sets (homework/*.md) through `otter assign`: _build/homework/<set>/{student,autograder}
# in otter's layout, each instructor notebook graded to full marks by otter on the way; then the
# student copies that Colab and Binder open are refreshed in student/homework/ (commit them)
homework: $(STAMP)
	$(BIN)/python -m tools.homework build --out _build/homework --sync

# the grading proofs on a fresh build (student/homework/ is compared with it, not rewritten; the
# tests grade the instructor notebook themselves), and the sets' links and files on both editions
homework-check: $(STAMP) site student
	$(BIN)/python -m tools.homework build --out _build/homework --no-run-tests
	IB_HOMEWORK=_build/homework IB_SITE=_build/html IB_STUDENT_SITE=_build/student \
	  $(BIN)/python -m pytest tests/homework

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
test: launch

launch: launch-pins launch-colab

launch-pins: _build/launch/pins.ok

_build/launch/pins.ok: $(STAMP) requirements.txt requirements-dev.txt pyproject.toml tests/launch/test_pins.py
	$(LAUNCH_TEST) tests/launch/test_pins.py
	mkdir -p $(@D) && touch $@

launch-colab: $(STAMP)
	$(BIN)/python -m tests.launch.colab_env build $(COLAB_VENV)
	$(LAUNCH_TEST) tests/launch/test_colab.py
