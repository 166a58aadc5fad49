"""What a page looks like, measured in the browser during the shared load of ``conftest.py``.

:func:`measure` reads the page as laid out at the viewport's width: each figure's rendered
and natural aspect ratio and width and, for a PNG figure of the book, the digest by which the
figure report names it (``ibcore.book.figure_report``); each display equation, code block and
table whose content is wider than its box or its box wider than the article's column, with
whether it scrolls and shows that it does; equation numbers drawn over their equation; and
the page's width. :func:`resources` lists what the page loaded (its weight).
``test_geometry.py`` and ``test_figure_widths.py`` judge them.
"""
from __future__ import annotations

DESKTOP, PHONE = 1280, 390
PHONE_HEIGHT = 844

GEOMETRY_JS = """async () => {
  // let the site's scroll cues (ib-layout.js) catch up with the last layout: resize observers
  // report within a frame, and a scan of new nodes waits for their burst to end
  const frame = () => new Promise(r => requestAnimationFrame(r));
  await frame(); await frame();
  for (let i = 0; i < 120 && window.ibLayout && !window.ibLayout.idle(); i++) await frame();
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const col = article.getBoundingClientRect();
  // in a closed <details> (a hidden cell) an element keeps a box but is not drawn
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility(); };
  const where = el => {
    const named = el.closest('[id]'), section = el.closest('section[id]');
    return (el.id || (named && named.id) || '') + (section && section !== named ? ' in #' + section.id : '');
  };
  // el or an ancestor in the article that scrolls sideways, and whether it shows it scrolls
  const scroller = el => {
    for (let e = el; e && e !== article.parentElement; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (['auto', 'scroll'].includes(cs.overflowX) && e.scrollWidth > e.clientWidth + 1) return e;
    }
    return null;
  };
  const cue = e => e.classList.contains('ib-scrolls') && getComputedStyle(e).maskImage !== 'none';

  // a figure's digest (the start of its PNG's sha256), by which the figure report names it
  window.__ibDigests = window.__ibDigests || {};
  const digest = async img => {
    const src = img.currentSrc || img.src;
    if (!(src in window.__ibDigests)) {
      const bytes = src.startsWith('data:') ? Uint8Array.from(atob(src.slice(src.indexOf(',') + 1)), c => c.charCodeAt(0))
        : await (await fetch(src)).arrayBuffer();
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      window.__ibDigests[src] = [...hash].map(b => b.toString(16).padStart(2, '0')).join('').slice(0, 16);
    }
    return window.__ibDigests[src];
  };
  const figures = [];
  for (const img of article.querySelectorAll('img')) {
    if (!shown(img) || !img.complete || !img.naturalWidth) continue;
    // the picture fills the content box (the dark theme pads figures on a white card)
    const r = img.getBoundingClientRect(), cs = getComputedStyle(img);
    const px = name => parseFloat(cs[name]) || 0;
    const w = r.width - px('paddingLeft') - px('paddingRight') - px('borderLeftWidth') - px('borderRightWidth');
    const h = r.height - px('paddingTop') - px('paddingBottom') - px('borderTopWidth') - px('borderBottomWidth');
    // a figure of the book: a cell's output, an explorer's frame, a glued or a {figure} image
    const book = !!img.closest('.cell_output, .ib-explorer, .ib-glued-figure, figure');
    figures.push({where: where(img), src: (img.getAttribute('src') || '').split('/').pop().slice(0, 40),
                  ratio: (w / h) / (img.naturalWidth / img.naturalHeight), book, width: w,
                  // its natural CSS width: its width attribute (a retina PNG's half), else its pixels
                  natural: parseFloat(img.getAttribute('width')) || img.naturalWidth,
                  digest: book && /[.]png$|^data:image[/]png/.test(img.getAttribute('src') || '') ? await digest(img) : null});
  }

  const wide = [];
  const check = (kind, box, content, el) => {
    const b = box.getBoundingClientRect(), c = content.getBoundingClientRect();
    const over = box.scrollWidth > box.clientWidth + 1 || c.right > b.right + 1 || c.left < b.left - 1
      || b.right > col.right + 1 || b.left < col.left - 1;
    if (!over) return;
    const s = scroller(box);
    const longest = kind === 'code' ? Math.max(...box.textContent.split('\\n').map(l => l.length)) : null;
    wide.push({kind, where: where(el), longest, content: Math.round(Math.max(box.scrollWidth, c.width)),
               box: Math.round(Math.min(b.width, col.width)), scrolls: !!s, cue: !!(s && cue(s))});
  };
  for (const m of article.querySelectorAll('mjx-container[display="true"]')) {
    if (!shown(m)) continue;
    const div = m.closest('div.math') || m, math = m.querySelector('mjx-math') || m;
    check('equation', m, math, div);
    const eqno = div.querySelector(':scope > .eqno');
    if (!eqno) continue;
    // what shows of the equation (a scrolling box clips it) must not lie under its number
    const a = math.getBoundingClientRect(), e = eqno.getBoundingClientRect(), s = scroller(m);
    const clip = s ? s.getBoundingClientRect() : a;
    const left = Math.max(a.left, clip.left), right = Math.min(a.right, clip.right);
    if (right > e.left + 1 && left < e.right - 1 && a.bottom > e.top + 1 && a.top < e.bottom - 1)
      wide.push({kind: 'equation under its number', where: where(div), scrolls: false, cue: false});
  }
  for (const pre of article.querySelectorAll('pre')) if (shown(pre)) check('code', pre, pre, pre);
  for (const t of article.querySelectorAll('table')) if (shown(t)) check('table', t.parentElement, t, t);
  const doc = document.documentElement;
  return {figures, wide, pageWidth: doc.scrollWidth, viewport: doc.clientWidth, column: Math.round(col.width)};
}"""

RESOURCES_JS = """() => [performance.getEntriesByType('navigation')[0].name,
                        ...performance.getEntriesByType('resource').map(e => e.name)]"""


def measure(page) -> dict:
    """The page's geometry at its viewport's width (see the module's docstring)."""
    return page.evaluate(GEOMETRY_JS)


def measure_phone(page) -> dict:
    """The page's geometry once its viewport is a phone's (390 px): the same load, laid out again."""
    page.set_viewport_size({"width": PHONE, "height": PHONE_HEIGHT})
    return measure(page)


def resources(page) -> list[str]:
    """The URLs of the page and of everything it loaded."""
    return page.evaluate(RESOURCES_JS)
