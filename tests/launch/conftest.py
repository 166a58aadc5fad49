"""The launch stage runs apart from the unit tests (`make launch`): it needs the network and
its own venv. `pytest tests` collects it only with IB_LAUNCH=1, as the Makefile sets."""
import os

collect_ignore_glob = [] if os.environ.get("IB_LAUNCH") else ["test_*.py"]
