"""The README's example of ibcore runs, and what its comments claim holds, so that it cannot rot."""
from __future__ import annotations

import re

import numpy as np

from tools.notebooks import ROOT


def test_the_readme_example_runs_and_says_true_things(tmp_path, monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) == 1, "the README has one Python example"
    monkeypatch.setenv("IBCORE_CACHE", str(tmp_path))  # the sweep's disk cache, not the user's
    monkeypatch.setenv("IBCORE_PROGRESS", "0")
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert len(capsys.readouterr().out.splitlines()) >= 3

    assert 0.1 < namespace["one"]["gap"] / np.sqrt(20 / 10_000) < 2  # "within about sqrt(n/d)"
    medians = namespace["summarise"](namespace["table"], "d", "gap")["median"]
    slope = np.polyfit(np.log([1e4, 1e5, 1e6]), np.log(medians), 1)[0]
    assert -0.7 < slope < -0.3, medians  # "falls like 1/sqrt(d)"
    run = namespace["run"]  # through the plateau to zero loss
    assert run.risk[-1] < 1e-3 < namespace["plateau"] < run.risk[0]
