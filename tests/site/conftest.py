"""Checks of the built website. They run when IB_SITE names the built HTML folder
(``make test`` sets it after the strict build); otherwise they are skipped."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def site() -> Path:
    folder = os.environ.get("IB_SITE")
    if not folder:
        pytest.skip("set IB_SITE to the built site (make site-check does)")
    path = (ROOT / folder).resolve()
    if not (path / "index.html").exists():
        pytest.fail(f"IB_SITE={folder} holds no built site; run `make book` first")
    return path
