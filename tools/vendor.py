"""Fetch the site's JavaScript (MathJax, require.js, the widget manager) from the npm registry.

It also serves the test-only packages (axe-core, the accessibility engine of the site
checks) to the tests: :func:`npm_file` reads them from the cached tarball, and they
never enter the site.

By default Sphinx and myst-nb load these from CDNs, so a site read offline
shows raw TeX and empty widget areas. This script downloads pinned npm
tarballs, checks their published sha512 integrity, and extracts the files the
site needs into ``_vendor/vendor/``; ``_config.yml`` lists ``_vendor`` in
``html_extra_path`` (not ``_static``, whose JavaScript JB1 would inject into
every page), so they are served from the site itself.

Only Python is needed. Tarballs are cached in ``~/.cache/ibcore/npm``.

Usage::

    python -m tools.vendor          # idempotent; a no-op when up to date
    python -m tools.vendor --tests  # download the test-only packages instead
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / "_vendor" / "vendor"
CACHE = Path(os.environ.get("IBCORE_CACHE", Path.home() / ".cache" / "ibcore")) / "npm"
REGISTRY = "https://registry.npmjs.org"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    integrity: str  # the registry's dist.integrity
    files: dict      # tarball path prefix -> destination folder under DEST
    suffixes: tuple = ()

    @property
    def url(self) -> str:
        base = self.name.split("/")[-1]
        return f"{REGISTRY}/{self.name}/-/{base}-{self.version}.tgz"


PACKAGES = [
    Package("mathjax", "3.2.2",
            "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
            {"package/es5/tex-mml-chtml.js": "mathjax",
             "package/es5/output/chtml/fonts/woff-v2/": "mathjax/output/chtml/fonts/woff-v2",
             "package/LICENSE": "mathjax"}),
    Package("requirejs", "2.3.7",
            "sha512-DouTG8T1WanGok6Qjg2SXuCMzszOo0eHeH9hDZ5Y4x8Je+9JB38HdTLT4/VA8OaUhBa0JPVHJ0pyBkM1z+pDsw==",
            {"package/require.js": "."}),
    Package("@jupyter-widgets/html-manager", "1.0.15",
            "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
            {"package/dist/": "html-manager"},
            suffixes=("embed-amd.js", ".woff", ".woff2", ".ttf", ".eot", ".svg", ".LICENSE.txt")),
]

# Used by the tests only, never copied into the site.
TEST_PACKAGES = {
    "axe-core": Package("axe-core", "4.14.1",
                        "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==",
                        {"package/axe.min.js": "."}),
}


def _fetch(pkg: Package) -> bytes:
    cached = CACHE / f"{pkg.name.replace('/', '__')}-{pkg.version}.tgz"
    if cached.exists():
        data = cached.read_bytes()
    else:
        with urllib.request.urlopen(pkg.url, timeout=120) as response:
            data = response.read()
    algo, expected = pkg.integrity.split("-", 1)
    digest = base64.b64encode(hashlib.new(algo, data).digest()).decode()
    if digest != expected:
        raise RuntimeError(f"{pkg.name}@{pkg.version}: integrity mismatch ({digest} != {expected})")
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(data)
    return data


def _extract(pkg: Package, data: bytes, dest: Path) -> int:
    count = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            for prefix, folder in pkg.files.items():
                if member.name == prefix or (prefix.endswith("/") and member.name.startswith(prefix)):
                    if prefix.endswith("/") and pkg.suffixes and not member.name.endswith(pkg.suffixes):
                        continue
                    rel = Path(member.name[len(prefix):] if prefix.endswith("/") else Path(member.name).name)
                    target = dest / folder / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(tar.extractfile(member).read())
                    count += 1
    return count


# The widget manager finds its icon fonts through the URL of its own AMD module, which
# require.js would resolve against each page's folder; map the module path to our copy.
WIDGET_PATHS_JS = """\
// Written by tools/vendor.py: tell require.js where the vendored widget manager lives,
// so that its fonts load from vendor/html-manager/ whatever the page's folder.
(function () {
  var src = document.currentScript.src;
  var base = src.slice(0, src.lastIndexOf("/") + 1);
  require.config({paths: {"@jupyter-widgets/html-manager/dist": base + "html-manager"}});
})();
"""


def npm_file(name: str, path: str) -> str:
    """The text of ``path`` inside the pinned test-only npm package ``name`` (downloaded once)."""
    pkg = TEST_PACKAGES[name]
    with tarfile.open(fileobj=io.BytesIO(_fetch(pkg)), mode="r:gz") as tar:
        return tar.extractfile(f"package/{path}").read().decode("utf-8")


def stamp() -> str:
    lines = [f"{p.name}@{p.version} {p.integrity}" for p in PACKAGES]
    lines.append(hashlib.sha256(WIDGET_PATHS_JS.encode()).hexdigest())
    return "\n".join(lines) + "\n"


def vendor(dest: Path = DEST) -> bool:
    """Make ``dest`` hold the pinned assets; return True when something was (re)written."""
    marker = dest / ".stamp"
    if marker.exists() and marker.read_text() == stamp():
        return False
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for pkg in PACKAGES:
        n = _extract(pkg, _fetch(pkg), dest)
        print(f"vendored {pkg.name}@{pkg.version}: {n} files")
    (dest / "widget-paths.js").write_text(WIDGET_PATHS_JS)
    marker.write_text(stamp())
    return True


if __name__ == "__main__":
    if "--tests" in sys.argv[1:]:  # only the test-only packages (`make system-deps`)
        for pkg in TEST_PACKAGES.values():
            _fetch(pkg)
    else:
        vendor()
    sys.exit(0)
