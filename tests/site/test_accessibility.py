"""Accessibility of both editions, measured with axe-core in headless Chromium.

Every page of the instructor and the student edition is audited in the light and the
dark theme; a serious or critical violation fails the test and is printed with its rule,
its element and its page. axe-core is pinned in ``tools/vendor.py`` (test-only: it never
enters the site). The keyboard test moves an explorer's sliders with the arrow keys on
the static site.

Set ``IB_SKIP_BROWSER=1`` to skip these tests on a machine without Chromium.
"""
from __future__ import annotations

import contextlib
import os

import pytest

from tools import browser as br
from tools import notebooks as nbtools
from tools.vendor import npm_file

PAGES = [p.relative_to(nbtools.ROOT).with_suffix(".html").as_posix() for p in nbtools.toc_files()]
THEMES = ("light", "dark")
FAILING_IMPACTS = ("serious", "critical")
EXPLORER_PAGE = "book/prologue/linear_min_norm.html"

# The dark theme changes colours only: its pass runs the rules that read colours.
THEME_RULES = ["color-contrast", "link-in-text-block"]
AXE_RUN = """async (rules) => {
  const options = {resultTypes: ['violations']};
  if (rules) options.runOnly = rules;
  const result = await axe.run(document, options);
  return result.violations.map(v => ({
    rule: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                              summary: n.failureSummary}))}));
}"""


@pytest.fixture(scope="module")
def chromium_browser():
    if os.environ.get("IB_SKIP_BROWSER"):
        pytest.skip("IB_SKIP_BROWSER is set")
    if br.chromium_executable() is None:
        pytest.fail("chromium is not installed: `apt-get install chromium` (make test does it as root), "
                    "or set IB_SKIP_BROWSER=1")
    with br.browser() as b:
        yield b


@pytest.fixture(scope="module")
def servers(request):
    """A server per edition, started when a test first asks for it (``servers[edition]``)."""
    with contextlib.ExitStack() as stack:
        class Servers(dict):
            def __missing__(self, edition):
                folder = request.getfixturevalue("site" if edition == "instructor" else "student_site")
                self[edition] = stack.enter_context(br.serve(folder))
                return self[edition]

        yield Servers()


@pytest.fixture(scope="module")
def axe_source() -> str:
    return npm_file("axe-core", "axe.min.js")


def audit(page, axe_source: str) -> dict[str, list[dict]]:
    """axe's serious and critical violations of the loaded page, per theme.

    Every rule runs in the light theme; the dark theme runs the rules that depend on colour.
    The theme's colour transitions are switched off, so that colours are read at rest.
    """
    page.add_script_tag(content=axe_source)
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important; }")
    found = {}
    for theme in THEMES:
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        rules = None if theme == THEMES[0] else THEME_RULES
        found[theme] = [v for v in page.evaluate(AXE_RUN, rules) if v["impact"] in FAILING_IMPACTS]
    return found


def report(page_name: str, found: dict[str, list[dict]]) -> str:
    lines = []
    for theme, violations in found.items():
        for v in violations:
            lines.append(f"{page_name} [{theme} theme] {v['rule']} ({v['impact']}): {v['help']}")
            for node in v["nodes"][:5]:
                lines.append(f"    element {node['target']}: {node['html']}")
                lines.append("      " + node["summary"].replace("\n", "\n      "))
            if len(v["nodes"]) > 5:
                lines.append(f"    ... and {len(v['nodes']) - 5} more elements")
    return "\n".join(lines)


@pytest.mark.parametrize("edition", ["instructor", "student"])
@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_serious_accessibility_violation(chromium_browser, servers, axe_source, edition, page_name):
    page = chromium_browser.new_page()
    try:
        br.load(page, f"{servers[edition]}/{page_name}")
        found = audit(page, axe_source)
    finally:
        page.close()
    assert not any(found.values()), f"axe-core, {edition} edition:\n" + report(page_name, found)


def test_explorer_sliders_are_named_and_work_by_keyboard(chromium_browser, servers):
    page = chromium_browser.new_page()
    try:
        br.load(page, f"{servers['instructor']}/{EXPLORER_PAGE}")
        sliders = page.get_by_role("slider")
        assert sliders.count() >= 2, "the explorer page shows no slider"
        names = [s.get_attribute("aria-labelledby") for s in sliders.all()]
        assert all(names), "every slider has an accessible name"
        labels = [page.locator(f"#{n}").inner_text().strip() for n in names]
        assert all(labels), f"slider labels are empty: {labels}"

        # Tab from the top of the page reaches every slider, in order
        reached = []
        for _ in range(400):
            page.keyboard.press("Tab")
            focused = page.evaluate("document.activeElement.getAttribute('aria-labelledby')")
            if focused in names and focused not in reached:
                reached.append(focused)
            if len(reached) == len(names):
                break
        assert reached == names, f"Tab reached {len(reached)} of {len(names)} sliders"

        # the arrow keys move the focused slider, its value text and the frame shown
        def shown_frame():
            return page.evaluate("""() => [...document.querySelectorAll('.ib-explorer-frame img')]
                                           .filter(img => img.offsetParent !== null).map(img => img.alt)""")

        first = page.locator(f'[aria-labelledby="{names[0]}"]')
        first.focus()
        before_text, before_frame = first.get_attribute("aria-valuetext"), shown_frame()
        assert len(before_frame) == 1, f"one frame is shown per explorer at a time, got {before_frame}"
        key = "ArrowLeft" if first.get_attribute("aria-valuenow") == first.get_attribute("aria-valuemax") \
            else "ArrowRight"
        page.keyboard.press(key)
        page.wait_for_timeout(300)
        after_text, after_frame = first.get_attribute("aria-valuetext"), shown_frame()
        assert after_text and after_text != before_text, "the arrow key changes the slider's value text"
        assert after_frame != before_frame, "the arrow key switches the frame shown"
        assert after_text in after_frame[0], "the frame's alt text names the new value"
    finally:
        page.close()
