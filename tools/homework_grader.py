"""The autograder's entry point, copied into each set's autograder zip as ``run_otter.py``.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once to build the
grading image, then, in a fresh container for every submission, runs ``run_autograder``, which
starts this file. Grading takes three processes, so that nothing a submission runs can reach
the tests, the grading data or the grader:

* **the grader** (this process) reads the tests, the set's given cells and the grading seed
  before any submitted code runs, removes them from the disk, runs the given cells itself (the
  instructor's data, drawn from the grading seed), and runs every test with otter's own test
  runner (``otter.test_files``). It never runs submitted code and receives only data: JSON and
  raw array bytes, never a pickle. A float subclass or a forged result object arrives as a plain
  ``float`` or a plain record, and the tests read the set's data (``X``, ``y``, ``seed``...) from
  the grader, never from the submission;
* **the notebook** (a child process) runs the submission's code cells, with the given cells
  replaced by the grader's (so the grading seed replaces the published one), then answers the
  grader's requests: the value of a name, or a call of one of its functions on the tests' inputs;
* **the NumPy-only notebook** (a second child) runs the same cells where ibcore can neither be
  imported nor read, and answers the calls of the functions that a question asks for "with NumPy
  only" (``grading.json``): a call of ibcore, however it is reached, fails there.

Both children install an audit hook (PEP 578, which no later code can remove) before any
submitted code runs. It refuses to read the grader's files, to write outside the work folder, to
open a directory (a descriptor that ``dir_fd`` arguments would resolve paths against, out of the
hook's sight), to start a process, to use ctypes, the network or another process's memory, and it reports to the
grader every such attempt and every change of the profiler or of otter's classes; the grader
also compares the test files of the work folder before and after. A question touched by one of
these scores 0, and the course staff see why (the entry "Integrity", hidden from students).

What students see is otter's summary of the public tests, each message capped: the hidden
tests are never shown, and the notebook processes never see them.

The grading seed is the zip's own (``grading.json``, drawn when ``make homework`` built it), or,
when the zip was built with per-student seeds, one derived from it and the submitter's
Gradescope id (``submission_metadata.json``); ``IB_GRADING_SEED`` overrides both (the tests'
five seeds, a regrade).

Run with no argument on Gradescope (``python -m tools.homework grade`` grades a submission with
a zip the same way, elsewhere), and for a submission's written answers with their rubrics::

    python run_otter.py --written SUBMISSION.ipynb [WRITTEN.json]

Only the standard library is needed for ``--written``.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

BEGIN, END = "<!-- BEGIN QUESTION -->", "<!-- END QUESTION -->"
# otter's placeholder in the answer cell of a written question
PLACEHOLDER = "_Type your answer here, replacing this text._"
HERE = Path(__file__).resolve().parent
# the files of the autograder's source folder that the notebook processes may read: this one
# (Python reads it to start them, and for the line of a warning); the others are the grader's
PUBLIC_SOURCE = {"run_otter.py", "homework_grader.py"}
MESSAGE_CAP = 600  # characters of a failed test's message that a student sees
ERROR_CAP = 240  # characters of a submission's own error message passed to a test
SEED_LINE = r"^seed = \d+"  # the line of the set-up cell that the grading seed replaces


# ---------------------------------------------------------------- written answers


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def answer_groups(notebook: dict) -> list[str]:
    """The text between each ``BEGIN QUESTION`` marker and the next ``END QUESTION`` marker.

    Otter marks the written questions of the student notebook with these two comments, in
    cells the student cannot edit: the first cell holds the marker and the question, the
    cells that follow (until the next marker) hold the answer. Code cells keep their fences.
    """
    groups: list[list[str]] = []
    current: list[str] | None = None
    for cell in notebook.get("cells", []):
        text = _source(cell)
        if current is not None and text.lstrip().startswith(END):
            groups.append(current)
            current = None
        if BEGIN in text:
            current = []  # this cell is the question; the answer follows
            continue
        if current is not None:
            if cell.get("cell_type") == "code":
                text = f"```python\n{text}\n```" if text.strip() else ""
            current.append(text)
    if current is not None:
        groups.append(current)
    return ["\n\n".join(part.strip() for part in group if part.strip()) for group in groups]


def written_entries(notebook: dict, questions: list[dict]) -> list[dict]:
    """Gradescope test entries with each written question's answer, points and rubric.

    ``questions`` is the set's ``written.json``: ``[{name, title, points, rubric}, ...]`` in
    the order of the notebook, ``rubric`` a list of ``{points, text, partial: [...]}``.
    """
    answers = answer_groups(notebook)
    entries = []
    for i, question in enumerate(questions):
        answer = answers[i] if i < len(answers) else ""
        if not answer.strip() or answer.strip() == PLACEHOLDER:
            answer = "*(no answer: the answer cell was left as handed out)*"
        lines = [f"**{question['title']}**, {question['points']:g} points, graded by hand.", "",
                 "#### The student's answer", "", answer, "", "#### Rubric", ""]
        for item in question["rubric"]:
            lines.append(f"- **{item['points']:g}**: {item['text']}")
            lines += [f"  - **{p['points']:g}** (partial): {p['text']}" for p in item["partial"]]
        entries.append({"name": f"{question['name']} (written, graded by hand)",
                        "output": "\n".join(lines), "output_format": "md", "visibility": "hidden"})
    if len(answers) != len(questions):
        entries.append({"name": "Written answers: structure", "visibility": "hidden", "output":
                        f"The submission has {len(answers)} written-answer sections; the set has "
                        f"{len(questions)} written questions. Read the notebook itself for these answers."})
    return entries


# ---------------------------------------------------------------- values between processes
#
# A value crosses a pipe as a JSON tree and a list of byte blobs (the arrays' data). Only data
# crosses: numbers, strings, arrays of numbers or booleans, lists, tuples, dicts, tables,
# records (an object's fields), functions as handles. Whatever a notebook sends, the grader
# decodes plain Python and NumPy objects; a subclass of float or ndarray becomes the base type.

_MAX_DEPTH = 8
_MAX_ITEMS = 1_000_000
_MAX_BYTES = 512 * 2**20
_MAX_TEXT = 20_000


def _pack(value, blobs: list, handles: list | None, depth: int = 0, rngs: list | None = None):
    """``value`` as a JSON-able tree; arrays' bytes go to ``blobs``, callables to ``handles``
    (their index is sent), random generators' states to ``rngs`` (so that a callee's draws move
    the caller's generator)."""
    np = sys.modules.get("numpy")
    if value is None or value is True or value is False:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__int__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        return number if number == number and abs(number) != float("inf") else {"__float__": repr(number)}
    if isinstance(value, str):
        return str.__str__(value)[:_MAX_TEXT]
    if isinstance(value, complex):
        return {"__complex__": [complex.__complex__(value).real, complex.__complex__(value).imag]}
    if value is Ellipsis:
        return {"__ellipsis__": 1}
    if depth >= _MAX_DEPTH:
        return {"__opaque__": type(value).__name__}
    if np is not None:
        if isinstance(value, np.random.Generator) and rngs is not None:
            rngs.append(value)
            return {"__rng__": len(rngs) - 1, "state": _pack(value.bit_generator.state, blobs, None, depth + 1)}
        if isinstance(value, np.generic):
            return _pack(value.item(), blobs, handles, depth, rngs)
        if isinstance(value, np.ndarray):
            array = np.ndarray.view(value, np.ndarray)
            if array.dtype.kind in "biufc" and array.size * array.itemsize <= _MAX_BYTES - sum(map(len, blobs)):
                blobs.append(np.ascontiguousarray(array).tobytes())
                return {"__array__": len(blobs) - 1, "dtype": array.dtype.str, "shape": list(array.shape)}
            if array.size <= _MAX_ITEMS:
                return {"__objects__": [_pack(v, blobs, handles, depth + 1, rngs) for v in array.ravel().tolist()],
                        "shape": list(array.shape)}
            return {"__opaque__": "ndarray"}
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        columns = list(value.columns)[:1000]
        return {"__frame__": [[_pack(c, blobs, None, depth + 1), _pack(value[c].to_numpy(), blobs, handles, depth + 1)]
                              for c in columns]}
    if pandas is not None and isinstance(value, pandas.Series):
        return _pack(value.to_numpy(), blobs, handles, depth, rngs)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_pack(v, blobs, handles, depth + 1, rngs) for v in list(value)[:_MAX_ITEMS]]
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple: a record too
            return {"__object__": type(value).__name__, "fields": {str(k): v for k, v in zip(value._fields, items)},
                    "items": items}
        return {"__tuple__": items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {"__dict__": [[_pack(k, blobs, None, depth + 1), _pack(v, blobs, handles, depth + 1, rngs)]
                             for k, v in list(value.items())[:_MAX_ITEMS]]}
    if callable(value) and not isinstance(value, type) and handles is not None:
        handles.append(value)
        return {"__callable__": len(handles) - 1, "name": str(getattr(value, "__name__", type(value).__name__))[:80]}
    if isinstance(value, type) or type(value).__name__ == "module":
        return {"__opaque__": f"{type(value).__name__} {getattr(value, '__name__', '')}"[:80]}
    return {"__object__": type(value).__name__, "fields": _fields(value, blobs, handles, depth, rngs)}


def _fields(value, blobs, handles, depth, rngs) -> dict:
    """An object's data: its dataclass fields, or its attributes, and its properties."""
    import dataclasses

    names = ([f.name for f in dataclasses.fields(value)] if dataclasses.is_dataclass(value)
             else [n for n in getattr(value, "__dict__", {}) if not n.startswith("_")])
    names += [n for klass in type(value).__mro__ for n, attr in vars(klass).items()
              if isinstance(attr, property) and not n.startswith("_") and n not in names]
    out = {}
    for name in names[:200]:
        try:
            out[name] = _pack(getattr(value, name), blobs, handles, depth + 1, rngs)
        except Exception:  # a property that cannot be computed is left out
            continue
    return out


class Record:
    """An object of the notebook, as the grader sees it: its fields, read as attributes."""

    def __init__(self, kind: str, fields: dict, items: list | None = None):
        self.__dict__.update(fields)
        self._kind, self._items = kind, items

    def __iter__(self):  # a named tuple unpacks; other records do not
        if self._items is None:
            raise TypeError(f"{self._kind} is not iterable")
        return iter(self._items)

    def __repr__(self):
        return f"<{self._kind}>"


class Opaque:
    """A value the notebook could not send as data (a module, an exotic object)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self):
        return f"<{self.kind}>"


def _unpack(tree, blobs: list, callable_for=None, generators: list | None = None):
    """The value of a tree from :func:`_pack`, built from data only."""
    import numpy as np

    def build(node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [build(v) for v in node]
        if not isinstance(node, dict) or len(node) > 3:
            return Opaque("value")
        if "__array__" in node:
            dtype = np.dtype(str(node["dtype"]))
            if dtype.kind not in "biufc" or dtype.hasobject:
                return Opaque("array")
            shape = tuple(int(n) for n in node["shape"])
            return np.frombuffer(blobs[int(node["__array__"])], dtype=dtype).reshape(shape).copy()
        if "__objects__" in node:
            values = [build(v) for v in node["__objects__"]]
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out.reshape(tuple(int(n) for n in node["shape"]))
        if "__tuple__" in node:
            return tuple(build(v) for v in node["__tuple__"])
        if "__dict__" in node:
            return {_hashable(build(k)): build(v) for k, v in node["__dict__"]}
        if "__frame__" in node:
            import pandas as pd

            return pd.DataFrame({_hashable(build(k)): build(v) for k, v in node["__frame__"]})
        if "__object__" in node:
            fields = {str(k): build(v) for k, v in dict(node.get("fields", {})).items() if str(k).isidentifier()}
            items = [build(v) for v in node["items"]] if "items" in node else None
            return Record(str(node["__object__"])[:80], fields, items)
        if "__callable__" in node:
            name = str(node.get("name", "function"))[:80]
            return callable_for(int(node["__callable__"]), name) if callable_for else Opaque(f"function {name}")
        if "__rng__" in node and generators is not None:
            generator = np.random.Generator(np.random.PCG64())
            generator.bit_generator.state = build(node["state"])
            generators.append(generator)
            return generator
        if "__float__" in node:
            return float(str(node["__float__"]))
        if "__complex__" in node:
            return complex(*[float(v) for v in node["__complex__"]])
        if "__ellipsis__" in node:
            return Ellipsis
        if "__opaque__" in node:
            return Opaque(str(node["__opaque__"])[:80])
        return Opaque("value")

    return build(tree)


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key if not isinstance(key, (dict, Record, Opaque)) else repr(key)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _send(fd: int, message: dict, blobs: list[bytes] = ()) -> None:
    header = json.dumps(message).encode()
    parts = [len(header).to_bytes(8, "big"), header, len(blobs).to_bytes(8, "big")]
    for blob in blobs:
        parts += [len(blob).to_bytes(8, "big"), blob]
    _write_all(fd, b"".join(parts))


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    import select
    import time

    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("the notebook's process did not answer in time")
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the notebook's process stopped")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(fd: int, deadline: float | None = None, limit: int = _MAX_BYTES + (64 << 20)) -> tuple[dict, list[bytes]]:
    size = int.from_bytes(_read_exact(fd, 8, deadline), "big")
    if size > limit:
        raise ValueError(f"a message of {size} bytes")
    message = json.loads(_read_exact(fd, size, deadline))
    count = int.from_bytes(_read_exact(fd, 8, deadline), "big")
    blobs, total = [], 0
    for _ in range(min(count, 100_000)):
        n = int.from_bytes(_read_exact(fd, 8, deadline), "big")
        total += n
        if total > limit:
            raise ValueError("too much data")
        blobs.append(_read_exact(fd, n, deadline))
    return message, blobs


# ---------------------------------------------------------------- the notebook processes


def _guard(flag_fd: int, scratch: str, protected: frozenset, block_ibcore: bool) -> None:
    """Install the audit hook of a notebook process (see the module's docstring).

    Everything the hook uses is bound here, before any submitted code runs, and it keeps no
    reference that submitted code could reach: it reports each attempt on ``flag_fd`` at once.
    """
    import os as _os
    import sys as _sys

    import stat as _stat

    write, stat, getpid, getcwd, getframe = _os.write, _os.stat, _os.getpid, _os.getcwd, _sys._getframe
    is_dir_mode = _stat.S_ISDIR
    startswith, str_split, str_join, encode = str.startswith, str.split, str.join, str.encode
    str_type, bytes_type, int_type, type_of, len_of = str, bytes, int, type, len
    decode = bytes.decode
    denied, missing = PermissionError, ModuleNotFoundError
    write_flags = _os.O_WRONLY | _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC | _os.O_APPEND
    cwd, pid = getcwd(), str(getpid())
    realpath = _os.path.realpath
    # the folder of both notebook processes' folders: neither may read the other's (the files
    # of a thread of the notebook's process would carry ibcore's answers to the NumPy-only one)
    own = realpath(scratch).rstrip("/") + "/"
    shared = own.rstrip("/").rsplit("/", 1)[0] + "/"
    scratch = scratch.rstrip("/") + "/"
    tests_dir = scratch + "tests/"
    count = [0]
    spawn = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                       "os.forkpty", "os.startfile", "pty.spawn"})
    network = frozenset({"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"})
    paths = frozenset({"os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.chown", "os.truncate",
                       "os.utime", "os.link", "os.symlink", "os.listdir", "os.scandir", "os.mkfifo", "os.mknod",
                       "sqlite3.connect"})
    handled = spawn | network | paths | frozenset({
        "open", "os.chdir", "os.fchdir", "os.kill", "os.killpg", "signal.pthread_kill", "sys.setprofile",
        "sys.settrace", "object.__setattr__", "import", "sys._current_frames"})
    blocked_modules = frozenset({"threadpoolctl", "cffi", "_cffi_backend"})

    def report(kind, detail):
        if count[0] < 200:
            count[0] += 1
            text = str_join(" ", str_split(str_type(detail)))[:200]
            try:
                write(flag_fd, encode(f"{kind}\t{text}\n", "utf-8", "replace"))
            except OSError:
                pass

    def absolute(path):
        if type_of(path) is bytes_type:
            path = decode(path, "utf-8", "surrogateescape")
        if type_of(path) is not str_type:
            return None  # a file descriptor
        if not startswith(path, "/"):
            path = cwd + "/" + path
        parts = []
        for part in str_split(path, "/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        return "/" + str_join("/", parts)

    def is_protected(path):
        try:
            info = stat(path)
        except (OSError, ValueError):
            return False
        return (info.st_dev, info.st_ino) in protected

    def is_directory(path):
        try:
            return is_dir_mode(stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def check_path(path, writing, what):
        full = absolute(path)
        if full is None:
            return None
        if startswith(full, "/proc/"):
            parts = str_split(full, "/")
            if writing or "mem" in parts or (len_of(parts) > 2 and parts[2] not in ("self", "thread-self", pid)
                                             and parts[2][:1] in "0123456789"):
                report("another process", f"{what} {full}")
                return denied(f"the autograder does not allow {what} {full}")
        if is_protected(full):
            report("grader's files", f"{what} {full}")
            return denied(f"the autograder does not allow {what} {full}")
        if writing:
            if startswith(full, tests_dir) or full + "/" == tests_dir:
                report("test files", full[len_of(tests_dir):] or "tests/")
            elif not (startswith(full + "/", scratch) or full == "/dev/null"):
                report("writes outside the work folder", f"{what} {full}")
                return denied(f"the autograder does not allow {what} {full} (outside the notebook's folder)")
            return None
        try:  # where the path leads, symbolic links followed (/proc/self/cwd/.. is the shared folder)
            real = realpath(full) + "/"
        except (OSError, ValueError):
            real = full + "/"
        if startswith(real, shared) and not startswith(real, own) and real != shared:
            report("another notebook's folder", f"{what} {full}")
            return denied(f"the autograder does not allow {what} {full} (another process's folder)")
        return None

    def decide(event, args):
        """The error that refuses this event, or None; it never raises itself (an error raised
        inside an audit hook while an extension module loads aborts the process)."""
        if event not in handled:
            if startswith(event, "ctypes."):
                report("ctypes", event)
                return denied("the autograder does not allow ctypes")
            return None
        if event == "open":
            path, mode, flags = args
            writing = (type_of(mode) is str_type and any(c in mode for c in "wax+")) or (
                type_of(flags) is int_type and flags & write_flags != 0 and mode is None)
            refusal = check_path(path, writing, "writing" if writing else "reading")
            if refusal is None and (full := absolute(path)) is not None and is_directory(full):
                # no file descriptor of a directory: the event does not show the dir_fd that a
                # later os.open(path, dir_fd=...) would resolve its path against, so that a
                # relative path there could read or write anything while this hook checked a
                # path in the notebook's folder
                report("directory fds", full)
                return denied(f"the autograder does not allow opening the directory {full}")
            return refusal
        if event in paths:
            for item in args[:2]:
                if type_of(item) in (str_type, bytes_type):
                    refusal = check_path(item, event not in ("os.listdir", "os.scandir"), event)
                    if refusal is not None:
                        return refusal
            if event in ("os.link", "os.symlink"):
                report("links", event)
                return denied("the autograder does not allow links")
            return None
        if event == "import":
            name = args[0]
            if type_of(name) is not str_type:
                return None
            if block_ibcore and (str_type.__eq__(name, "ibcore") or startswith(name, "ibcore.")):
                report("ibcore", name)
                return missing("ibcore is not available here: the autograder runs this function with NumPy only")
            if name in blocked_modules:
                return missing(f"{name} is not available in the autograder")
            return None
        if event in ("sys.setprofile", "sys.settrace"):
            report("profiler", event)
        elif event == "object.__setattr__":
            target = args[0]
            if isinstance(target, type):
                module = type.__getattribute__(target, "__module__")
                # an attribute of one of otter's classes set by the notebook's own code (not while
                # otter's modules are imported)
                if type_of(module) is str_type and startswith(module, "otter") and startswith(
                        getframe(1).f_code.co_filename, "<"):
                    report("otter", f"{module}.{type.__getattribute__(target, '__name__')}.{args[1]}")
        elif event in spawn:
            report("processes", event)
            return denied("the autograder does not allow starting processes")
        elif event in network:
            report("network", event)
            return denied("the autograder does not allow the network")
        elif event in ("os.kill", "os.killpg", "signal.pthread_kill"):
            report("signals", event)
            return denied("the autograder does not allow signals")
        elif event in ("os.chdir", "os.fchdir"):
            return denied("the autograder runs the notebook in its own folder: os.chdir is not allowed")
        elif event == "sys._current_frames":
            return denied("sys._current_frames is not allowed in the autograder")
        return None

    def hook(event, args):
        try:
            refusal = decide(event, args)
        except Exception:
            refusal = None
        if refusal is not None:
            raise refusal

    _sys.addaudithook(hook)


class _NoGrader:
    """Stands for otter's ``grader`` in a notebook process: checks run in the grader."""

    def check(self, *args, **kwargs):
        return None

    def check_all(self, *args, **kwargs):
        return None

    def export(self, *args, **kwargs):
        return None


class _Shell:
    """``get_ipython()`` of a notebook process: magics do nothing but run a cell's code."""

    def __init__(self, namespace: dict):
        self.user_ns = namespace

    def run_line_magic(self, name, line, *args):
        if name in ("time", "timeit", "capture"):
            exec(compile(line, "<magic>", "exec"), self.user_ns)

    def run_cell_magic(self, name, line, cell):
        if name in ("time", "timeit", "capture", "prun"):
            exec(compile(cell, "<magic>", "exec"), self.user_ns)

    def system(self, *args, **kwargs):
        raise PermissionError("shell commands do not run in the autograder")

    getoutput = system


def _assigned_names(statement) -> list[str]:
    import ast

    names = []
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.append(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
    return names


def _error_text(err: BaseException) -> tuple[str, str]:
    name = type(err).__name__
    try:
        message = str(err)
    except Exception:
        message = "(an error whose message cannot be read)"
    return (name if name.isidentifier() else "Error")[:60], message[:ERROR_CAP]


def _worker(kind: str, fd_in: int, fd_out: int, fd_flags: int) -> None:
    """A notebook process: ``student`` (the submission as is) or ``numpy`` (without ibcore)."""
    import ast
    import builtins
    import resource

    init, _ = _recv(fd_in)
    scratch = init["scratch"]
    os.chdir(scratch)
    out = os.open(os.path.join(scratch, ".output"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file too large fails to write, nothing more
    import ctypes  # noqa: F401  (scipy and pandas import it; the hook refuses its use)
    try:  # dill (otter's, 0.1 s) looks up Python's C functions with ctypes when imported
        import dill  # noqa: F401
    except ImportError:
        pass

    import numpy  # noqa: F401
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell
    namespace = {"__name__": "__main__", "__builtins__": builtins, "grader": _NoGrader()}
    namespace["get_ipython"] = (lambda shell=_Shell(namespace): shell)
    namespace["display"] = lambda *args, **kwargs: None
    before = tuple((name, id(value)) for name, value in vars(builtins).items())
    failed: dict[str, tuple[str, str]] = {}  # name -> the error of the statement that defines it
    handles: list = []
    protected = frozenset(tuple(pair) for pair in init["protected"])
    _guard(fd_flags, scratch, protected, kind == "numpy")
    del init, protected

    while True:
        try:
            request, blobs = _recv(fd_in)
        except EOFError:
            os._exit(0)
        op, reply, out_blobs = request.get("op"), {"ok": True}, []
        try:
            if op == "run":
                try:
                    tree = ast.parse(transform(request["source"]))
                except SyntaxError as err:
                    reply = {"ok": False, "error": _error_text(err)}
                else:
                    statements = tree.body if kind == "numpy" else [tree]
                    for statement in statements:
                        module = statement if isinstance(statement, ast.Module) else ast.Module([statement], [])
                        try:
                            exec(compile(module, f"<cell {request['index']}>", "exec"), namespace)
                        except BaseException as err:  # noqa: B036  (SystemExit too: a cell may call exit())
                            text = _error_text(err)
                            reply = {"ok": False, "error": text}
                            for name in _assigned_names(statement):
                                failed.setdefault(name, text)
                            if isinstance(err, KeyboardInterrupt):
                                raise
            elif op == "get":
                name = request["name"]
                if name not in namespace:
                    reply = {"ok": True, "missing": True, "why": failed.get(name)}
                else:
                    reply["value"] = _pack(namespace[name], out_blobs, handles)
            elif op == "call":
                generators: list = []
                args = _unpack(request["args"], blobs, generators=generators)
                kwargs = _unpack(request["kwargs"], blobs, generators=generators)
                try:
                    function = (namespace[request["name"]] if request.get("handle") is None
                                else handles[int(request["handle"])])
                    result = function(*args, **kwargs)
                except BaseException as err:  # noqa: B036
                    reply = {"ok": False, "error": _error_text(err)}
                else:
                    reply["value"] = _pack(result, out_blobs, handles)
                reply["rngs"] = [_pack(g.bit_generator.state, out_blobs, None) for g in generators]
            elif op == "audit":
                reply["changed"] = _changed(before, builtins, namespace)
        except Exception as err:  # the answer could not be built
            reply, out_blobs = {"ok": False, "error": _error_text(err)}, []
        try:
            _send(fd_out, reply, out_blobs)
        except (OSError, ValueError, TypeError):
            os._exit(3)


def _changed(before: tuple, builtins, namespace: dict) -> list[str]:
    """What the notebook replaced in Python's builtins, or in otter's, ibcore's and sys's modules
    and classes (a function of theirs that a notebook cell defined): a best effort, read in the
    notebook's own process, beside the audit hook's reports."""
    def from_notebook(value) -> bool:
        for wrapped in ("fget", "__func__"):
            if not isinstance(value, type) and hasattr(value, wrapped):
                value = getattr(value, wrapped)
        code = getattr(value, "__code__", None)
        return code is not None and str(getattr(code, "co_filename", "")).startswith(("<cell", "<magic"))

    changed = [f"builtins.{name}" for name, ident in before
               if name not in vars(builtins) or id(vars(builtins)[name]) != ident]
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name.split(".")[0] not in ("otter", "ibcore", "sys"):
            continue
        for name, value in list(vars(module).items()):
            if from_notebook(value):
                changed.append(f"{module_name}.{name}")
            elif isinstance(value, type) and getattr(value, "__module__", None) == module_name:
                changed += [f"{module_name}.{name}.{attr}" for attr, member in list(vars(value).items())
                            if from_notebook(member)]
    return changed[:50]


# ---------------------------------------------------------------- the grader


class SubmissionError(Exception):
    """Raised by a function of the submission, as the grader sees it."""


def _exception_class(name: str, numpy_only: bool):
    import builtins

    known = getattr(builtins, name, None)
    if isinstance(known, type) and issubclass(known, Exception) and not numpy_only:
        return known
    return type(name, (SubmissionError,), {})


class Notebook:
    """A notebook process, seen from the grader: it runs cells, and answers gets and calls.

    A call that does not return in ``call_timeout`` seconds stops the process; the next request
    starts it again and replays its cells (``cells``), up to ``restarts`` times and while the
    notebook's ``deadline`` allows, so that one stuck function costs its own tests only.
    """

    def __init__(self, kind: str, scratch: Path, protected: set, env: dict, call_timeout: float, restarts: int = 0):
        self.kind, self.scratch, self.call_timeout = kind, scratch, call_timeout
        self.restarts_left, self._spawn = restarts, (protected, env)
        self.cells: list[tuple[str, str | None]] = []
        self.deadline = float("inf")
        self.flags: list[tuple[str, str, object]] = []
        self.context: object = None  # what the process runs now: a cell's index or a question
        self.dead: str | None = None
        self._values: dict[str, tuple] = {}
        self._start()

    def _start(self) -> None:
        import subprocess

        protected, env = self._spawn
        to_child, self._out = os.pipe()
        self._in, from_child = os.pipe()
        flags_in, flags_out = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-B", str(Path(__file__).resolve()), "--worker", self.kind,
             str(to_child), str(from_child), str(flags_out)],
            pass_fds=(to_child, from_child, flags_out), env=env, cwd=self.scratch,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_child, from_child, flags_out):
            os.close(fd)
        self._flags_in, self._pending = flags_in, b""
        os.set_blocking(flags_in, False)
        _send(self._out, {"scratch": str(self.scratch), "protected": sorted(protected)})

    def _revive(self) -> bool:
        """The process, stopped by a call, started again with its cells replayed (their reports
        were read the first time), if restarts and time are left."""
        import time

        if self.restarts_left <= 0 or not self.cells or time.monotonic() > self.deadline - 5:
            return False
        self.restarts_left -= 1
        context, reports = self.context, len(self.flags)
        self.dead = None
        self._start()
        try:
            for index, (code, _) in enumerate(self.cells):
                self.run(index, code, timeout=max(1.0, self.deadline - time.monotonic()))
        except TimeoutError:
            return False
        finally:
            del self.flags[reports:]
            self.context = context
        return True

    def _read_flags(self) -> None:
        """The reports that the audit hook wrote while the last request ran, charged to what
        the process was running (the hook writes each before its event goes on, so it is in
        the pipe when the answer comes; the hook writes at most 200, well within a pipe)."""
        while self._flags_in >= 0:
            try:
                chunk = os.read(self._flags_in, 65536)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        for line in lines:
            kind, _, detail = line.decode("utf-8", "replace").partition("\t")
            if len(self.flags) < 200:
                self.flags.append((kind[:40], detail[:200], self.context))

    def request(self, message: dict, blobs: list = (), timeout: float | None = None) -> tuple[dict, list]:
        import time

        if self.dead and not self._revive():
            raise TimeoutError(self.dead)
        try:
            _send(self._out, message, blobs)
            return _recv(self._in, time.monotonic() + (timeout or self.call_timeout))
        except (TimeoutError, EOFError, OSError, ValueError) as err:
            self._read_flags()
            self.dead = (f"the notebook's process stopped answering ({err}); the autograder stopped it"
                         if not isinstance(err, TimeoutError) else
                         f"the notebook took more than {timeout or self.call_timeout:g} s; the autograder stopped it")
            self.close()
            raise TimeoutError(self.dead) from None
        finally:
            if not self.dead:
                self._read_flags()

    def run(self, index: int, source: str, timeout: float) -> tuple[str, str] | None:
        """Run one cell; its error (type name, message), if any."""
        self.context = index
        reply, _ = self.request({"op": "run", "index": index, "source": source}, timeout=timeout)
        return tuple(reply["error"]) if not reply.get("ok") and reply.get("error") else None

    def value(self, name: str):
        """The value of ``name`` in the notebook, decoded anew each time (tests may change it)."""
        if name not in self._values:
            try:
                self._values[name] = self.request({"op": "get", "name": name})
            except TimeoutError:
                self._values[name] = ({"ok": True, "missing": True, "why": None}, [])
        reply, blobs = self._values[name]
        if reply.get("missing"):
            return _Missing(name, reply.get("why")) if self.kind == "numpy" else None
        tree = reply.get("value")
        if isinstance(tree, dict) and "__callable__" in tree:  # called by its name: it outlives a restart
            return Remote(self, None, name)
        return _unpack(tree, blobs, callable_for=self._remote)

    def _remote(self, handle: int, name: str) -> "Remote":
        return Remote(self, handle, name)

    def audit(self) -> list[str]:
        try:
            reply, _ = self.request({"op": "audit"}, timeout=30)
        except TimeoutError:
            return []
        return [str(x)[:120] for x in reply.get("changed", [])][:50]

    def output(self, limit: int = 4000) -> str:
        try:
            data = (self.scratch / ".output").read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def close(self) -> None:
        for name in ("_out", "_in", "_flags_in"):  # each once: a closed number may be reused
            fd = getattr(self, name)
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, name, -1)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class Remote:
    """A function of the notebook, called from a test: the arguments go as data, the result
    comes back as data, and an error it raises is raised here with its type's name and its
    message (capped)."""

    def __init__(self, notebook: Notebook, handle: int | None, name: str):
        self.notebook, self.handle, self.__name__ = notebook, handle, name  # no handle: by name

    def __call__(self, *args, **kwargs):
        blobs, generators = [], []
        message = {"op": "call", "handle": self.handle, "name": self.__name__,
                   "args": _pack(list(args), blobs, None, rngs=generators),
                   "kwargs": _pack(dict(kwargs), blobs, None, rngs=generators)}
        try:
            reply, out = self.notebook.request(message, blobs)
        except TimeoutError as err:
            raise TimeoutError(str(err)) from None
        for generator, state in zip(generators, reply.get("rngs", [])):
            try:
                generator.bit_generator.state = _unpack(state, out)
            except (TypeError, ValueError, KeyError):
                pass
        if not reply.get("ok"):
            name, text = (list(reply.get("error") or ["Error", ""]) + ["", ""])[:2]
            numpy_only = self.notebook.kind == "numpy"
            if numpy_only:
                text += f" (the autograder runs {self.__name__} without ibcore: NumPy only)"
            raise _exception_class(str(name), numpy_only)(str(text)[:ERROR_CAP + 80])
        return _unpack(reply.get("value"), out, callable_for=self.notebook._remote)

    def __repr__(self):
        return f"<function {self.__name__}>"


class _Missing:
    """A NumPy-only function that the notebook did not define without ibcore: calling it says why."""

    def __init__(self, name: str, why):
        self.__name__, self.why = name, why

    def __call__(self, *args, **kwargs):
        if self.why:
            name, text = self.why
            raise _exception_class(str(name), True)(
                f"{text} (its definition failed when the autograder ran the notebook without ibcore: "
                f"{self.__name__} must use NumPy only)")
        raise _exception_class("NameError", True)(f"{self.__name__} is not defined")

    def __repr__(self):
        return f"<function {self.__name__}>"


class Answers(dict):
    """The tests' environment: the set's data from the grader, the answers from the notebooks.

    otter calls each test with ``environment.get(name)`` for each of its arguments.
    """

    def __init__(self, given: dict, student: Notebook, numpy: Notebook | None, numpy_only: set[str]):
        super().__init__()
        self.given, self.student, self.numpy, self.numpy_only = given, student, numpy, numpy_only

    def get(self, name, default=None):
        if name in self.given:
            return self.given[name]
        if self.numpy is not None and name in self.numpy_only:
            return self.numpy.value(name)
        return self.student.value(name)

    def __getitem__(self, name):
        return self.get(name)

    def __contains__(self, name):
        return True


def grading_seed(config: dict, metadata: dict) -> tuple[int, str]:
    """The seed of this grading, and how it was chosen."""
    import hashlib

    override = os.environ.get("IB_GRADING_SEED", "").strip()
    if override:
        return int(override), "set by IB_GRADING_SEED"
    base = int(config["seed"]["grading"])
    if config["seed"].get("per_student"):
        users = sorted(str(u.get("id") or u.get("email") or "") for u in metadata.get("users") or [])
        if any(users):
            digest = hashlib.sha256(f"{base}:{','.join(users)}".encode()).digest()
            return int.from_bytes(digest[:4], "big") % 2**31, "derived from the submitter's Gradescope id"
        return base, "the zip's seed (per-student seeds need Gradescope's submission metadata)"
    return base, "the zip's seed"


def _code_cells(notebook: dict) -> list[dict]:
    return [c for c in notebook.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]


def _tags(cell: dict) -> list:
    tags = (cell.get("metadata") or {}).get("tags") or []
    return tags if isinstance(tags, list) else []


_CHECK = r'grader\.check\(\s*["\'](\w+)["\']\s*\)'


def cells_to_run(notebook: dict, config: dict, seed: int) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The code cells that the notebook processes run, each with the question it belongs to (the
    one whose ``grader.check`` cell follows it), and notes for the student.

    The submission's given cells (found by id, else by their text) are replaced by the
    grader's, the set-up cell with the grading seed in place of the published one; otter's
    cells (the installs, ``grader = otter.Notebook()``, the checks) are left out.
    """
    import re

    setup = re.sub(SEED_LINE, f"seed = {seed}", config["setup"]["source"], count=1, flags=re.M)
    given = {g["id"]: g["source"] for g in config["given"]}
    by_text = {g["source"].strip(): g["id"] for g in config["given"]}
    code = [c for c in _code_cells(notebook) if "otter_ignore" not in _tags(c)]
    order = [m.group(1) for c in code if (m := re.fullmatch(_CHECK, _source(c).strip()))]
    # which of the submission's cells are the given ones: first those of the same text, then,
    # among the cells that are no answer cells, those of the same id (edited by the student),
    # then the set-up cell by its seed line
    match: dict[int, str] = {}
    for i, cell in enumerate(code):
        ident = by_text.get(_source(cell).strip())
        if ident is not None and ident not in match.values():
            match[i] = ident
    answer_tags = {"otter_answer_cell", "otter_assign_solution_cell"}
    for i, cell in enumerate(code):
        ident = cell.get("id")
        if (i not in match and ident in given and ident not in match.values()
                and not answer_tags & set(_tags(cell))):
            match[i] = ident
    if config["setup"]["id"] not in match.values():
        first = next((i for i, c in enumerate(code) if i not in match
                      and re.search(SEED_LINE, _source(c), flags=re.M)), None)
        if first is not None:
            match[first] = config["setup"]["id"]
    out, used, notes, position = [], set(), [], 0
    for i, cell in enumerate(code):
        source = _source(cell)
        stripped = source.strip()
        if re.fullmatch(_CHECK, stripped):
            position += 1
            continue
        if stripped == config["init_source"].strip() or re.fullmatch(r"grader\.check_all\(\s*\)", stripped):
            continue
        if i in match:
            used.add(match[i])
            source = setup if match[i] == config["setup"]["id"] else given[match[i]]
        out.append((source, order[position] if position < len(order) else None))
    if config["setup"]["id"] not in used:
        out.insert(0, (setup, order[0] if order else None))
        notes.append("The set-up cell was not found: the grader ran its own before the notebook.")
    return out, notes


def _protected_files(*roots: Path, keep: set[str] = frozenset()) -> set[tuple[int, int]]:
    out = set()
    for root in roots:
        if not root.exists():
            continue
        for path in [root, *root.rglob("*")]:
            if path.name in keep:
                continue
            try:
                info = path.stat()
            except OSError:
                continue
            out.add((info.st_dev, info.st_ino))
    return out


def _given_namespace(config: dict, seed: int) -> dict:
    """The set's data, drawn by the grader: its given cells run here, with the grading seed."""
    import contextlib
    import io
    import re

    namespace: dict = {"__name__": "__given__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for given in config["given"]:
            source = given["source"]
            if given["id"] == config["setup"]["id"]:
                source = re.sub(SEED_LINE, f"seed = {seed}", source, count=1, flags=re.M)
            exec(compile(source, f"<given {given['id']}>", "exec"), namespace)
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def _worker_env(scratch: Path) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(scratch), "TMPDIR": str(scratch / "tmp"),
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(scratch / ".matplotlib"), "IBCORE_CACHE": str(scratch / ".cache"),
           "IBCORE_PROGRESS": "0", "IBCORE_SWEEP_JOBS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "LANG": os.environ.get("LANG", "C.UTF-8")}
    (scratch / "tmp").mkdir(parents=True, exist_ok=True)
    return env


class Refused(Exception):
    """A submission that cannot be graded, with what to tell the student."""


@dataclass
class Source:
    """What the grader reads from the zip before any submitted code runs."""

    config: dict  # grading.json
    otter_config: dict
    written: list[dict]
    tests: dict[str, str]  # question -> its test file
    public: dict[str, str]  # question -> its public test file

    @property
    def questions(self) -> list[str]:
        return [q["name"] for q in self.config["questions"]]

    @property
    def numpy_only(self) -> set[str]:
        return {n for q in self.config["questions"] for n in q.get("numpy_only", [])}


def read_source(source: Path, *, consume: bool) -> Source:
    """The zip's tests and grading data, checked against the hashes it was built with; with
    ``consume``, removed from the disk once read."""
    import hashlib
    import shutil

    config = json.loads((source / "grading.json").read_text(encoding="utf-8"))
    tests, public = {}, {}
    for q in config["questions"]:
        text = (source / q["test"]).read_text(encoding="utf-8")
        if hashlib.sha256(text.encode()).hexdigest() != q["sha256"]:
            raise RuntimeError(f"{q['test']} differs from the one this zip was built with")
        tests[q["name"]] = text
        if q.get("public"):
            public[q["name"]] = (source / q["public"]).read_text(encoding="utf-8")
    out = Source(config, json.loads((source / "otter_config.json").read_text(encoding="utf-8")),
                 json.loads((source / "written.json").read_text(encoding="utf-8")), tests, public)
    if consume:
        for path in [source / "grading.json", source / "tests", source / "public"]:
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    return out


def read_submission(folder: Path, config: dict) -> tuple[dict, list[str]]:
    """The submitted notebook and notes for the student; :class:`Refused` when it is not one
    notebook of this set."""
    import re

    submissions = sorted(folder.glob("*.ipynb"))
    if len(submissions) != 1:
        raise Refused(f"Upload one notebook (.ipynb) of {config['title']}; the submission holds {len(submissions)}.")
    try:
        notebook = json.loads(submissions[0].read_text(encoding="utf-8"))
        assert isinstance(notebook, dict) and isinstance(notebook.get("cells"), list)
    except (ValueError, AssertionError, UnicodeDecodeError):
        raise Refused(f"{submissions[0].name} is not a notebook that Jupyter can open: upload the .ipynb file "
                      "that you saved (on Colab: File → Download → Download .ipynb).") from None
    name = ((notebook.get("metadata") or {}).get("otter") or {}).get("assignment_name")
    if name is None:
        checks = {m.group(1) for c in _code_cells(notebook) if (m := re.fullmatch(_CHECK, _source(c).strip()))}
        if not checks & {q["name"] for q in config["questions"]}:
            raise Refused(f"This notebook is not {config['title']}: it has no otter metadata (the notebook's "
                          "metadata 'otter': {'assignment_name': ...}) and none of the set's grader.check cells. "
                          f"Upload your copy of {config['name']}.ipynb.")
        return notebook, [f"This notebook has lost its otter metadata (the notebook's metadata 'otter': "
                          f"{{'assignment_name': '{config['name']}'}}), which some editors drop; it was graded as "
                          f"{config['title']} because it holds the set's questions. To keep it, edit the "
                          "notebook handed out rather than a copy made elsewhere."]
    if name != config["name"]:
        raise Refused(f"This notebook is the set '{name}', and this assignment is {config['title']} "
                      f"('{config['name']}'): upload the notebook of this set.")
    return notebook, []


def start_notebooks(work: Path, source: Source, protected: set) -> dict[str, Notebook]:
    """The notebook process, and the NumPy-only one when the set has NumPy-only functions."""
    import importlib.util

    processes = {}
    for kind in ("student", "numpy") if source.numpy_only else ("student",):
        scratch = work / kind
        scratch.mkdir()
        extra = set()
        if kind == "student":  # the public tests, as a student's folder has them
            (scratch / "tests").mkdir()
            for q, text in source.public.items():
                (scratch / "tests" / f"{q}.py").write_text(text, encoding="utf-8")
        else:  # ibcore's files cannot be read there either
            extra = _protected_files(Path(importlib.util.find_spec("ibcore").origin).parent)
        # the NumPy-only process replays quickly (what needs ibcore fails at once): 3 restarts;
        # the notebook's own, which reruns the whole notebook, 1
        processes[kind] = Notebook(kind, scratch, protected | extra, _worker_env(scratch),
                                   call_timeout=float(source.config["call_timeout"]),
                                   restarts=3 if kind == "numpy" else 1)
    return processes


def run_cells(process: Notebook, cells: list[tuple[str, str | None]]) -> list[tuple]:
    """Run the cells in a notebook process (by its deadline); the errors, as ``(cell index,
    type, message)``."""
    import time

    errors = []
    for index, (code, _) in enumerate(cells):
        try:
            error = process.run(index, code, timeout=max(1.0, process.deadline - time.monotonic()))
        except TimeoutError as err:
            errors.append((index, "Timeout", str(err)))
            break
        if error:
            errors.append((index, *error))
    return errors


def run_tests(source: Source, environment: Answers, processes: dict[str, Notebook]):
    """Every test file with otter's test runner, in this process; the calls that a question's
    tests make into the notebooks are charged to the question."""
    from otter.test_files import GradingResults
    from otter.test_files.exception_test import ExceptionTestFile

    files = []
    for q in source.questions:
        for process in processes.values():
            process.context = q
        test = ExceptionTestFile.from_string(source.tests[q], path=f"tests/{q}.py")
        test.run(environment)
        for result in test.test_case_results:
            if not result.passed and result.message and len(result.message) > MESSAGE_CAP:
                result.message = result.message[:MESSAGE_CAP] + " [...]"
        files.append(test)
    return GradingResults(files)


def touched_questions(source: Source, cells: list, processes: dict[str, Notebook], student_tests: Path,
                      changed: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """What the notebook touched of the grading, by question (each scores 0), and what was only
    refused (noted for the staff)."""
    questions = source.questions
    owner = {i: q for i, (_, q) in enumerate(cells)}
    flags = [(kind, detail, owner.get(where, where) if isinstance(where, int) else where)
             for process in processes.values() for kind, detail, where in process.flags]
    refused_kinds = ("writes outside the work folder", "directory fds", "another notebook's folder", "processes",
                     "network", "ibcore")
    touched: dict[str, list[str]] = {}
    for kind, detail, where in flags:
        if kind in refused_kinds:
            continue
        if kind == "test files":
            targets = [Path(detail).stem] if Path(detail).stem in questions else questions
        elif kind == "otter":
            targets = questions
        else:
            targets = [where] if where in questions else questions
        for q in targets:
            touched.setdefault(q, []).append(f"{kind}: {detail}")
    for q, text in source.public.items():
        path = student_tests / f"{q}.py"
        if not path.is_file() or path.read_text(encoding="utf-8", errors="replace") != text:
            touched.setdefault(q, []).append(f"test files: tests/{q}.py was changed by the notebook")
    for item in changed:
        for q in questions:
            touched.setdefault(q, []).append(f"replaced: {item}")
    refused = sorted({f"{kind}: {detail}" for kind, detail, _ in flags if kind in refused_kinds})[:20]
    return touched, refused


def grade(autograder_dir: Path, *, consume: bool = True, seed: int | None = None) -> dict:
    """Grade the submission in ``autograder_dir/submission`` (Gradescope's layout) and write
    ``autograder_dir/results/results.json``; return the results.

    With ``consume``, the tests and the grading data are removed from ``source/`` once read, so
    that no process started later can read them (Gradescope grades each submission in a fresh
    container).
    """
    import shutil
    import tempfile
    import threading
    import time

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in the notebook processes: same roundings
    import numpy  # noqa: F401
    from otter.run.run_autograder.autograder_config import AutograderConfig

    started = time.monotonic()
    autograder_dir = Path(autograder_dir).resolve()
    results_dir = autograder_dir / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    source = read_source(autograder_dir / "source", consume=consume)
    metadata_path = autograder_dir / "submission_metadata.json"
    metadata = json.loads(metadata_path.read_text(encoding="utf-8")) if metadata_path.is_file() else {}

    def finish(output: dict) -> dict:
        (results_dir / "results.json").write_text(json.dumps(output, indent=2), encoding="utf-8")
        return output

    try:
        notebook, notes = read_submission(autograder_dir / "submission", source.config)
    except Refused as refusal:
        return finish({"score": 0, "stdout_visibility": "hidden", "tests": [
            {"name": "Submission", "visibility": "visible", "status": "failed", "output": str(refusal)}]})
    seed, why = (seed, "given to the grader") if seed is not None else grading_seed(source.config, metadata)
    cells, cell_notes = cells_to_run(notebook, source.config, seed)
    notes += cell_notes
    work = Path(tempfile.mkdtemp(prefix="ib-grading-"))
    processes: dict[str, Notebook] = {}
    try:
        processes = start_notebooks(work, source, _protected_files(autograder_dir / "source", results_dir,
                                                                   keep=PUBLIC_SOURCE))
        errors: dict[str, list] = {}
        for process in processes.values():  # what a restart replays, and by when
            process.cells, process.deadline = cells, time.monotonic() + float(source.config["notebook_timeout"])
        threads = [threading.Thread(target=lambda k=kind: errors.__setitem__(k, run_cells(processes[k], cells)))
                   for kind in processes]
        for thread in threads:
            thread.start()
        given = _given_namespace(source.config, seed)  # meanwhile, the set's data here
        for thread in threads:
            thread.join()
        ran = time.monotonic() - started
        student = processes["student"]
        changed = student.audit() if not student.dead else []
        results = run_tests(source, Answers(given, student, processes.get("numpy"), source.numpy_only), processes)
        tested = time.monotonic() - started - ran
        touched, refused = touched_questions(source, cells, processes, work / "student" / "tests", changed)
        for q in touched:
            results.update_score(q, 0)

        output = results.to_gradescope_dict(AutograderConfig({**source.otter_config,
                                                               "autograder_dir": str(autograder_dir)}))
        output["stdout_visibility"] = "hidden"
        for entry in output["tests"]:
            if entry.get("name") in touched:
                entry["output"] = ("Scored 0: the notebook touched what grades this question (see Integrity).\n\n"
                                   + entry.get("output", ""))
        if notes:
            output["tests"].insert(0, {"name": "Submission notes", "visibility": "visible", "output": "\n\n".join(notes)})
        lines = [f"Graded with seed {seed} ({why}) in {time.monotonic() - started:.1f} s "
                 f"(the notebook ran in {ran:.1f} s, the tests in {tested:.1f} s)."]
        integrity = [f"{q}: " + "; ".join(sorted(set(reasons)))[:800] for q, reasons in sorted(touched.items())]
        lines += ["Scored 0 for touching the grading:"] + integrity if integrity else ["Nothing touched the grading."]
        if refused:
            lines += ["Refused, not scored:"] + refused
        for kind, label in (("student", "the notebook"), ("numpy", "the notebook without ibcore")):
            shown = [f"cell {i + 1}: {e}: {m}" for i, e, m in errors.get(kind, [])][:15]
            if shown:
                lines += [f"Errors in {label}:"] + shown
        lines += ["Output of the notebook (end):", student.output(2000)]
        output["tests"].append({"name": "Integrity", "visibility": "hidden", "output": "\n".join(lines)})
        output["tests"].extend(written_entries(notebook, source.written))
        return finish(output)
    finally:
        for process in processes.values():
            process.close()
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------- command line


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        _worker(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
        return 0
    if argv[:1] == ["--written"]:
        notebook = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        written = Path(argv[2]) if len(argv) > 2 else HERE / "written.json"
        for entry in written_entries(notebook, json.loads(written.read_text(encoding="utf-8"))):
            print(f"=== {entry['name']}\n{entry['output']}\n")
        return 0
    grade(HERE.parent)  # /autograder on Gradescope
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
