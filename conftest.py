"""Root conftest: lets nbval collect the book's MyST chapters (see tests/nbval_myst.py)."""
pytest_plugins = ["tests.nbval_myst"]
