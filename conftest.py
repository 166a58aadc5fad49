"""Root conftest: lets nbval collect the book's MyST chapters (tests/nbval_myst.py), and
gives the tests the tiers and the built artefacts as options (tests/built.py)."""
pytest_plugins = ["tests.nbval_myst", "tests.built"]
