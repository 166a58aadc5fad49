"""Accessibility of both editions, measured with axe-core in headless Chromium.

Every page of the instructor and the student edition is audited in the light and the
dark theme (a student page that is the instructor's but for the edition's name, a page
without exercises, is audited once, as the instructor's: ``conftest.same_as_instructor``); a serious or critical violation fails the test and is printed with its rule,
its element and its page. axe-core is pinned in ``tools/vendor.py`` (test-only: it never
enters the site). The keyboard test moves an explorer's sliders with the arrow keys on
the static site.

The browser, the servers and each page's load are shared with the rendering checks
(``conftest.py``).
"""
from __future__ import annotations

import pytest

from tools import browser as br

from .conftest import PAGES

EXPLORER_PAGE = "book/prologue/linear_min_norm.html"


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
def test_page_has_no_serious_accessibility_violation(rendered, edition, page_name):
    page = rendered(edition)[page_name]  # every page of the edition, loaded and audited once
    if page.shared:
        pytest.skip(f"{page_name}: the instructor edition's page but for the edition's name, audited there")
    assert not page.error, f"{edition} edition, {page_name}: {page.error}"
    assert page.ready, f"{edition} edition, {page_name}: the widgets did not render"
    assert not any(page.found.values()), f"axe-core, {edition} edition:\n" + report(page_name, page.found)


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
        page.wait_for_function(
            """([slider, before]) => document.querySelector(`[aria-labelledby="${slider}"]`)
                                        .getAttribute('aria-valuetext') !== before""",
            arg=[names[0], before_text], timeout=10_000)
        after_text, after_frame = first.get_attribute("aria-valuetext"), shown_frame()
        assert after_text and after_text != before_text, "the arrow key changes the slider's value text"
        assert after_frame != before_frame, "the arrow key switches the frame shown"
        assert after_text in after_frame[0], "the frame's alt text names the new value"
    finally:
        page.close()
