"""tools.other_seeds rewrites seeds only: the shifted cells draw what the book's draw at seed + offset."""
import numpy as np
import pytest

from tools import other_seeds

CELLS = [
    "def trial(*, n, rng=None):\n    return np.random.default_rng(rng).standard_normal(n)",
    "a = np.random.default_rng(3).standard_normal(2)\n"
    "b = trial(n=2, rng=5)\n"
    "c = np.random.default_rng([7, 1]).standard_normal(2)\n"
    "g = np.random.default_rng(11)\n"
    "d = g.standard_normal(2)\n"
    "s = list(seeds_of(seeds=range(2, 4)))\n"
    "flag = pick(rng=True)",
]


def run(cells, offset):
    space = {"np": np, "seeds_of": lambda seeds: seeds, "pick": lambda rng: rng}
    exec(other_seeds.HELPERS.format(offset=offset), space)
    for source, _ in other_seeds.shifted_cells(cells):
        exec(source, space)
    return space


def draw(seed):
    return np.random.default_rng(seed).standard_normal(2)


@pytest.mark.parametrize("offset", [0, 1, 4])
def test_every_seed_moves_by_the_offset_and_nothing_else(offset):
    out = run(CELLS, offset)
    np.testing.assert_array_equal(out["a"], draw(3 + offset))
    # a chapter's own function is not a sink: the generator inside it is, once
    np.testing.assert_array_equal(out["b"], draw(5 + offset))
    np.testing.assert_array_equal(out["c"], draw([7 + offset, 1]))
    np.testing.assert_array_equal(out["d"], draw(11 + offset))
    assert out["s"] == list(range(2 + offset, 4 + offset))
    assert out["flag"] is True  # a bool is not a seed


def test_a_sweep_without_a_seed_gets_the_offset():
    (source, sinks), = other_seeds.shifted_cells(["t = sweep(f, grid, trials=4)"])
    assert sinks == 1 and "seed=__ib_shift__(0)" in source.replace(" ", "")


def test_every_chapter_has_seeds_to_shift():
    """A chapter whose seeds the rewriting missed would pass every offset without being tested."""
    for md in other_seeds.chapters():
        cells = [c["source"] for c in other_seeds.code_cells(md)]
        assert sum(n for _, n in other_seeds.shifted_cells(cells)) > 0, md.relative_to(other_seeds.ROOT)
