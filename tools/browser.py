"""The built site in Debian's headless Chromium, driven by Playwright (no browser download).

Shared by the site's browser tests (accessibility, keyboard) and by the print edition
(``tools/pdf.py``): serve a built site on a loopback port, open Chromium, and load a page
until its mathematics is typeset and its widgets are drawn.

Chromium comes from Debian (``make system-deps`` installs it as root): its headless shell,
``chromium-headless-shell``, when installed, else ``chromium``; ``CHROMIUM`` names another
executable. The shell is the same Blink and V8 without the desktop browser's windowing and
compositor (Playwright's own default for headless runs): the site's checks take about a
fifth less CPU with it (measured: CHANGELOG.md).
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]

# Resolves when MathJax has typeset the page and every widget view is drawn (or after 30 s).
READY_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const start = Date.now();
  while (document.querySelectorAll('.widget-subarea').length < views && Date.now() - start < 30000)
    await new Promise(r => setTimeout(r, 100));
  await Promise.all([...document.images].map(img => img.complete ? null
    : new Promise(r => { img.addEventListener('load', r); img.addEventListener('error', r); })));
  return document.querySelectorAll('.widget-subarea').length >= views;
}"""


def chromium_executable() -> str | None:
    """Debian's chromium-headless-shell or chromium (or ``$CHROMIUM``), or None when neither is installed."""
    return (os.environ.get("CHROMIUM") or shutil.which("chromium-headless-shell") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[tuple[str, int]] | None = None

    def log_message(self, *args):  # no access log in the test output
        pass

    def send_response(self, code, message=None):
        if self.requests is not None:
            self.requests.append((self.path, code))
        super().send_response(code, message)


@contextlib.contextmanager
def serve(folder: Path, *, record: list[tuple[str, int]] | None = None):
    """Serve ``folder`` on a free loopback port; yields the base URL.

    ``record``, a list, receives ``(path, status)`` of every request (the tests look for 404s).
    """
    handler = functools.partial(type("Handler", (_QuietHandler,), {"requests": record}), directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.contextmanager
def browser():
    """A headless Playwright Chromium on Debian's executable."""
    from playwright.sync_api import sync_playwright

    exe = chromium_executable()
    if exe is None:
        raise RuntimeError("chromium is not installed: `apt-get install chromium-headless-shell` "
                           "(make system-deps does it as root)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


def script_errors(page) -> list[str]:
    """A list that fills with the JavaScript errors of ``page`` from now on: the uncaught ones
    (name: message) and those its scripts or Chromium log (console.error: text, a resource
    that fails to load among them)."""
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(f"{err.name}: {err.message}"))
    page.on("console", lambda msg: msg.type == "error" and errors.append(f"console.error: {msg.text}"))
    return errors


def load(page, url: str, *, timeout_ms: int = 60_000) -> None:
    """Open ``url`` and wait until its maths and widgets are rendered; raise if widgets never draw."""
    page.goto(url, wait_until="load", timeout=timeout_ms)
    if not page.evaluate(READY_JS):
        raise RuntimeError(f"{url}: the widgets did not render")
