"""What the launch services read from the repository, read the way they read it.

* the supported Python range: ``requires-python`` in ``pyproject.toml``, the one source;
* ``runtime.txt`` as repo2docker (Binder) parses it;
* the requirement files, with their ``-r`` includes and local (``-e .``) lines;
* the installed closure of a set of requirements, and the shared libraries an ELF file needs.
"""
from __future__ import annotations

import re
import struct
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
# the Python versions repo2docker can build (repo2docker/buildpacks/conda/supported_python_version.py,
# jupyterhub/repo2docker at 808ae6b, 2026-08-21); its default for a bare `python-3` is 3.10
REPO2DOCKER_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")


def pyproject(root: Path = ROOT) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))


def requires_python(root: Path = ROOT) -> SpecifierSet:
    """The supported Python range, as ``pyproject.toml`` declares it."""
    return SpecifierSet(pyproject(root)["project"]["requires-python"])


def minimum_python(root: Path = ROOT) -> str:
    """The lowest ``3.x`` inside the declared range."""
    spec = requires_python(root)
    return next(f"3.{minor}" for minor in range(6, 40) if f"3.{minor}" in spec)


def read_runtime(path: Path) -> tuple[str, str | None, str | None]:
    """``(name, version, date)`` of a ``runtime.txt``, by repo2docker's rules.

    repo2docker accepts ``name-version``, ``name-version-YYYY-MM-DD`` and ``name-YYYY-MM-DD``
    and raises on anything else.
    """
    text = Path(path).read_text(encoding="utf-8").strip()
    parts = text.split("-")
    if len(parts) not in (2, 4, 5) or not all(parts):
        raise ValueError(f"repo2docker rejects runtime.txt {text!r}")
    version = parts[1] if len(parts) in (2, 5) else None
    date = "-".join(parts[-3:]) if len(parts) in (4, 5) else None
    if date and not re.fullmatch(r"\d{4}-\d\d-\d\d", date):
        raise ValueError(f"repo2docker rejects the date of runtime.txt {text!r}")
    return parts[0], version, date


def is_local_requirement(line: str) -> bool:
    """True for a requirement line that names something on disk (``-e .``, ``-r file``, a path)."""
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith("--pre"):
        return False
    if line.startswith(("-r", "-c", "--requirement", "--constraint")):
        return True
    if line.startswith("--") and "=" in line:
        line = line.split("=", 1)[1]
    if line.startswith("-e"):
        line = line[2:].strip()
    return line.startswith((".", "/", "file:"))


def requirement_lines(path: Path) -> tuple[list[str], list[str]]:
    """``(requirements, local lines)`` of a requirements file, following its ``-r`` includes."""
    reqs, local = [], []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r"):
            more, more_local = requirement_lines(Path(path).parent / line[2:].strip())
            reqs += more
            local += more_local
        elif is_local_requirement(line):
            local.append(line)
        else:
            reqs.append(line)
    return reqs, local


def installed_closure(requirements: list[str]) -> set[str]:
    """Canonical names of the installed distributions that ``requirements`` pull in."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        for dep in metadata.distribution(name).requires or []:
            dep = Requirement(dep)
            extras = req.extras or {""}
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in extras):
                todo.append(dep)
    return seen


def project_dependencies(root: Path = ROOT) -> list[str]:
    """The dependencies of the project that ``-e .`` installs (ibcore's, from ``pyproject.toml``)."""
    return list(pyproject(root)["project"]["dependencies"])


def needed_libraries(path: Path) -> list[str] | None:
    """The ``DT_NEEDED`` entries of an ELF shared object, or None if ``path`` is not ELF.

    Reads the ``.dynamic`` section and its string table through the section headers
    (64-bit little-endian ELF only, as on x86-64 and aarch64 Linux).
    """
    with open(path, "rb") as fh:
        head = fh.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return None
        shoff, = struct.unpack_from("<Q", head, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", head, 0x3A)
        fh.seek(shoff)
        table = fh.read(shentsize * shnum)
        # (sh_type, sh_offset, sh_size, sh_link) of every section
        sections = [struct.unpack_from("<4xI16xQQI", table, i * shentsize) for i in range(shnum)]

        def read(offset, size):
            fh.seek(offset)
            return fh.read(size)

        needed = []
        for sh_type, offset, size, link in sections:
            if sh_type != 6:  # SHT_DYNAMIC
                continue
            dynamic = read(offset, size)
            strings = read(sections[link][1], sections[link][2])
            for tag, value in struct.iter_unpack("<qQ", dynamic[:len(dynamic) // 16 * 16]):
                if tag == 0:  # DT_NULL
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(strings[value:strings.index(b"\0", value)].decode())
        return needed
