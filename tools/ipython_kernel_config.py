# Configuration of the notebook kernels that the book's builds and tests start: `make`
# copies it into the virtual environment (.venv/etc/ipython/), where ipykernel reads it.
#
# ipykernel 7.4 logs "Kernel is running over TCP without encryption" at WARNING level each
# time myst-nb or nbval starts a kernel (a dozen times per build), because they connect to
# it on 127.0.0.1 without CurveZMQ keys. The kernel's own log is raised to ERROR: a kernel
# that fails still says so, and cell output, warnings raised in cells and tracebacks are
# not the kernel's log and are unaffected.
c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.IPKernelApp.log_level = "ERROR"

# While `make test` executes the chapters (IBCORE_FIGURE_REPORT names the report file), every
# figure they display is checked for legends drawn over data (ibcore.book.figure_report.py).
import os  # noqa: E402

if os.environ.get("IBCORE_FIGURE_REPORT"):
    c.InteractiveShellApp.extensions = ["ibcore.book.figure_report"]
