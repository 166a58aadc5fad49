"""Every chapter reads as ``teaching-style.md`` asks, measured on its built page.

The limits are the guide's, with the slack its "about" allows: at most about 3,000 words of
main text; a figure about every 650 words, the first within the first screen; at most two
intervals in a paragraph and six in the prose; at least two Think prompts. The measurement is
``tools/reading_stats.py``'s (what counts as main text is said there).
"""
from __future__ import annotations

import re

import pytest

from tools import notebooks as nbtools
from tools.reading_stats import chapter_stats

MAX_WORDS = 3300             # "about 3,000"
MAX_WORDS_PER_FIGURE = 800   # "about 650"
FIRST_SCREEN_WORDS = 200     # the question and the learning goals, then the headline figure
MAX_INTERVALS, MAX_INTERVALS_IN_A_PARAGRAPH, MIN_THINK = 6, 2, 2
WORDS_PER_MINUTE = 120       # "about 3,000 words (about 25 minutes)"
READING_TIME = re.compile(r"Reading time: about (\d+) minutes")

CHAPTERS = [path for path in nbtools.chapters() if path.stem[:2].isdigit() or "prologue" in path.parts]


def test_the_chapters_are_found():
    parts = {path.parent.name for path in CHAPTERS}
    assert {"relu", "quadratic", "prologue"} <= parts and len(CHAPTERS) >= 13, CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(nbtools.ROOT).as_posix())
def test_chapter_reads_within_the_teaching_limits(site, chapter):
    stats = chapter_stats(site, chapter)
    problems = []
    if stats.words > MAX_WORDS:
        problems.append(f"{stats.words} words of main text (at most about 3,000)")
    if stats.first_figure is None or stats.first_figure > FIRST_SCREEN_WORDS:
        problems.append(f"the first figure after {stats.first_figure} words (within the first screen)")
    if stats.words_per_figure > MAX_WORDS_PER_FIGURE:
        problems.append(f"{stats.words_per_figure:.0f} words per figure (about 650)")
    if stats.intervals > MAX_INTERVALS or stats.most_in_a_paragraph > MAX_INTERVALS_IN_A_PARAGRAPH:
        problems.append(f"{stats.intervals} intervals in the prose, {stats.most_in_a_paragraph} in one paragraph "
                        "(at most six, and two)")
    if stats.think < MIN_THINK:
        problems.append(f"{stats.think} Think prompts (at least two)")
    assert not problems, "; ".join(problems)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(nbtools.ROOT).as_posix())
def test_the_stated_reading_time_follows_the_main_text(site, chapter):
    stated = READING_TIME.search(chapter.read_text(encoding="utf-8"))
    assert stated, f"{chapter.name} states no reading time in its learning goals"
    expected = chapter_stats(site, chapter).words / WORDS_PER_MINUTE
    assert abs(int(stated.group(1)) - expected) <= max(2.0, 0.2 * expected), (
        f"{chapter.name} says about {stated.group(1)} minutes; its main text reads in about {expected:.0f}")
