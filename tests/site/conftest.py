"""Checks of the built website, run by ``make check``, which passes ``--site`` and
``--student-site`` (the fixtures of tests/built.py)."""
from __future__ import annotations

import contextlib
import dataclasses

import pytest

from tools import browser as br
from tools import notebooks as nbtools
from tools.sphinx_editions import same_as_instructor
from tools.vendor import npm_file

from . import geometry

ROOT = nbtools.ROOT


# ---------------------------------------------------------------- the browser checks
# One headless Chromium for the tests of this folder, one loopback server per edition, and every
# page of an edition loaded once: the accessibility audit (test_accessibility.py), the
# rendering checks (test_browser.py) and the layout checks (test_geometry.py) read the same load.

PAGES = [p.relative_to(ROOT).with_suffix(".html").as_posix() for p in nbtools.toc_files()]
THEMES = ("light", "dark")
FAILING_IMPACTS = ("serious", "critical")
# The dark theme changes colours only: its pass runs the rules that read colours.
THEME_RULES = ["color-contrast", "link-in-text-block"]
# Pages in flight at once (each in its own renderer process): one loads while another is audited.
PAGES_IN_FLIGHT = 2
# axe's serious and critical violations in each theme: every rule in the first theme, the
# colour rules in the others. Colour transitions are off (the style tag), so colours are read at rest.
AUDIT_JS = """async ({themes, themeRules, failing}) => {
  const found = {};
  for (const [i, theme] of themes.entries()) {
    document.documentElement.dataset.theme = theme;
    const options = {resultTypes: ['violations']};
    if (i > 0) options.runOnly = themeRules;
    const result = await axe.run(document, options);
    found[theme] = result.violations.filter(v => failing.includes(v.impact)).map(v => ({
      rule: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                summary: n.failureSummary}))}));
  }
  return found;
}"""
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; animation: none !important; }"


@pytest.fixture(scope="package")
def chromium_browser():
    """Debian's headless Chromium through Playwright, launched once for this folder's tests
    (and closed after them: Playwright's event loop runs in this thread while it is open)."""
    if br.chromium_executable() is None:
        pytest.fail("chromium is not installed: run `make system-deps`")
    with br.browser() as b:
        yield b


class Servers(dict):
    """``servers[edition]``: the base URL of a server of that edition, started when first asked;
    ``servers.requests[edition]``: ``(path, status)`` of every request it answered."""

    def __init__(self, request, stack):
        super().__init__()
        self.requests: dict[str, list[tuple[str, int]]] = {}
        self._request, self._stack = request, stack

    def __missing__(self, edition):
        folder = self._request.getfixturevalue("site" if edition == "instructor" else "student_site")
        self.requests[edition] = []
        self[edition] = self._stack.enter_context(br.serve(folder, record=self.requests[edition]))
        return self[edition]


@pytest.fixture(scope="package")
def servers(site, request):
    with contextlib.ExitStack() as stack:
        yield Servers(request, stack)


@pytest.fixture(scope="package")
def axe_source() -> str:
    return npm_file("axe-core", "axe.min.js")


@dataclasses.dataclass
class Rendered:
    """One page as Chromium rendered it, and what axe found there."""
    ready: bool  # MathJax typeset and every widget drawn (tools.browser.READY_JS)
    dom: str  # the DOM once ready, before the audit touched it
    found: dict[str, list[dict]]  # theme -> axe's serious and critical violations
    error: str = ""  # why the page could not be loaded or audited
    # viewport width -> the layout there (geometry.measure): at 1280 px before the audit,
    # at 390 px after it, the same load laid out again
    layout: dict[int, dict] = dataclasses.field(default_factory=dict)
    resources: list[str] = dataclasses.field(default_factory=list)  # URLs the page loaded
    # JavaScript errors, uncaught or logged, from the load to the end of the audit (br.script_errors)
    errors: list[str] = dataclasses.field(default_factory=list)
    # a student page that is the instructor's page but for the edition's name: not loaded again,
    # its audit and measurements are the instructor edition's (same_as_instructor)
    shared: bool = False


def render_and_audit(browser, base: str, pages: list[str], axe_source: str,
                     in_flight: int = PAGES_IN_FLIGHT) -> dict[str, Rendered]:
    """Load each page, wait until it is ready, keep its DOM, audit it in both themes.

    Up to ``in_flight`` pages are open at once, each in a fresh browser context (no cache
    shared between pages, so each page requests all it needs): the audit of one runs in its
    renderer while the next loads.
    """
    args = {"themes": list(THEMES), "themeRules": THEME_RULES, "failing": list(FAILING_IMPACTS)}
    results: dict[str, Rendered] = {}
    queue, open_pages = list(pages), []

    def start(name):
        page = browser.new_page()
        errors = br.script_errors(page)
        try:
            page.goto(f"{base}/{name}", wait_until="load", timeout=60_000)
            ready = page.evaluate(br.READY_JS)
            dom = page.content()
            layout = {geometry.DESKTOP: geometry.measure(page)}
            page.add_script_tag(content=axe_source)
            page.add_style_tag(content=NO_TRANSITIONS)
            # start the audit without awaiting it: it runs while the next page loads
            page.evaluate(f"(args) => {{ window.__ibAudit = ({AUDIT_JS})(args); }}", args)
            open_pages.append((name, page, ready, dom, layout, errors))
        except Exception as err:  # reported by the page's own test
            results[name] = Rendered(False, "", {}, f"{type(err).__name__}: {err}", errors=errors)
            page.close()

    while queue or open_pages:
        while queue and len(open_pages) < max(1, in_flight):
            start(queue.pop(0))
        if not open_pages:
            continue
        name, page, ready, dom, layout, errors = open_pages.pop(0)
        try:
            results[name] = Rendered(ready, dom, page.evaluate("() => window.__ibAudit"), layout=layout,
                                     errors=errors)
            layout[geometry.PHONE] = geometry.measure_phone(page)
            results[name].resources = geometry.resources(page)
        except Exception as err:
            results[name] = Rendered(ready, dom, {}, f"{type(err).__name__}: {err}", layout=layout, errors=errors)
        finally:
            page.close()
    return results


@pytest.fixture(scope="package")
def shared_pages(site, student_site) -> set[str]:
    """The student pages that are the instructor's (``same_as_instructor``): 12 of 26, the
    pages without exercises."""
    return {name for name in PAGES if same_as_instructor(site, student_site, name)}


@pytest.fixture(scope="package")
def rendered(site, chromium_browser, servers, axe_source, request):
    """``rendered(edition)``: every page of the edition, loaded and audited once per session.
    The student edition's pages that are the instructor's (``shared_pages``) are not loaded:
    they come back ``shared``, and the instructor edition's checks cover them."""
    done: dict[str, dict[str, Rendered]] = {}

    def get(edition: str) -> dict[str, Rendered]:
        if edition not in done:
            shared = request.getfixturevalue("shared_pages") if edition == "student" else set()
            done[edition] = render_and_audit(chromium_browser, servers[edition],
                                             [p for p in PAGES if p not in shared], axe_source)
            done[edition].update({p: Rendered(True, "", {}, shared=True) for p in shared})
            done[edition] = {p: done[edition][p] for p in PAGES}
        return done[edition]

    return get
