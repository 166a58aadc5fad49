"""How a chapter reads, measured on the built page: words, figures, intervals, Think prompts.

    python -m tools.reading_stats [--site _build/html] [chapter.md ...]

The main text is what a reader meets without opening anything: the article's paragraphs,
lists and admonitions, outside code cells, the evidence blocks, the answers to Think
prompts, dropdowns (a provenance in full, a proof), the exercises and their solutions, and
figure captions. For each chapter it gives

* ``words``: words of main text (``teaching-style.md``: about 3,000 at most);
* ``figures`` and ``first figure``: figures and explorers shown, and the words of main text
  before the first one (it should come within the first screen);
* ``words per figure``: the main text over the figures (about 650 or fewer);
* ``intervals``: intervals such as ``0.52 [0.47, 0.57]`` in the main text, and the most in
  one paragraph (six and two at most);
* ``think``: Think prompts.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from tools import notebooks as nbtools

INTERVAL = re.compile(r"[−-]?\d[\d.,]*\s*\[\s*[−-]?\d[\d.,]*\s*,\s*[−-]?\d[\d.,]*\s*\]")
WORD = re.compile(r"[A-Za-zÀ-ÿ0-9][\w'’.-]*")
#: Elements (by class) whose text is not main text.
SKIP_CLASSES = {"cell_input", "cell_output", "ib-evidence", "ib-answer", "exercise", "solution",
                "caption", "ib-explorer", "highlight", "toggle-details", "math", "dropdown"}
#: Elements whose figures a reader does not see without opening them.
CLOSED_CLASSES = {"ib-evidence", "ib-answer", "exercise", "solution", "toggle-details", "dropdown"}
#: Elements that hold a paragraph of their own.
BLOCKS = {"p", "li", "dd", "dt", "td", "th", "blockquote"}


@dataclass
class Stats:
    words: int = 0
    figures: int = 0
    first_figure: int | None = None
    intervals: int = 0
    most_in_a_paragraph: int = 0
    think: int = 0

    @property
    def words_per_figure(self) -> float:
        return self.words / self.figures if self.figures else float("inf")


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_article = 0
        self.stack: list[tuple[str, bool]] = []
        self.skipping = 0
        self.closed = 0
        self.stats = Stats()
        self.paragraph: list[str] = []

    def _flush(self):
        text = " ".join(self.paragraph)
        self.paragraph = []
        found = len(INTERVAL.findall(text))
        self.stats.intervals += found
        self.stats.most_in_a_paragraph = max(self.stats.most_in_a_paragraph, found)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if tag == "article":
            self.in_article += 1
        skip = bool(classes & SKIP_CLASSES) or tag in ("script", "style", "pre", "math", "mjx-container")
        closed = bool(classes & CLOSED_CLASSES)
        self.stack.append((tag, skip, closed))
        self.skipping += skip
        self.closed += closed
        if not self.in_article:
            return
        if "ib-think" in classes:
            self.stats.think += 1
        shown_figure = tag == "figure" or "ib-explorer" in classes
        if shown_figure and not self.closed:
            self.stats.figures += 1
            if self.stats.first_figure is None:
                self.stats.first_figure = self.stats.words
        if tag in BLOCKS and not self.skipping:
            self._flush()

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, skip, closed = self.stack.pop()
            self.skipping -= skip
            self.closed -= closed
            if open_tag == "article":
                self.in_article -= 1
            if open_tag in BLOCKS and not self.skipping:
                self._flush()
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.in_article and not self.skipping:
            self.stats.words += len(WORD.findall(data))
            self.paragraph.append(data)


def page_stats(html: str) -> Stats:
    """The reading statistics of one built page."""
    reader = _Reader()
    reader.feed(html)
    reader._flush()
    return reader.stats


def chapter_stats(site: Path, md: Path) -> Stats:
    page = site / md.resolve().relative_to(nbtools.ROOT).with_suffix(".html")
    return page_stats(page.read_text(encoding="utf-8"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=nbtools.ROOT / "_build" / "html")
    parser.add_argument("chapters", nargs="*", type=Path)
    args = parser.parse_args(argv)
    chapters = args.chapters or nbtools.chapters()
    print(f"{'chapter':34} {'words':>6} {'figures':>7} {'first at':>8} {'words/fig':>9} "
          f"{'intervals':>9} {'max/para':>8} {'think':>5}")
    for md in chapters:
        s = chapter_stats(args.site, Path(md))
        name = Path(md).resolve().relative_to(nbtools.ROOT).as_posix()
        print(f"{name:34} {s.words:6d} {s.figures:7d} {str(s.first_figure):>8} "
              f"{s.words_per_figure:9.0f} {s.intervals:9d} {s.most_in_a_paragraph:8d} {s.think:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
