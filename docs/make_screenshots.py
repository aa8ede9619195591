"""Screenshots of the documentation site, as a reader sees it: ``figures/site_home.png`` (the home page: install
and quick start) and ``figures/site_api.png`` (the API reference at ``cwla.evaluate``: its wrapped signature
and docstring).

    python docs/make_screenshots.py [--site DIR]

``--site``: a built site (``mkdocs build --strict --site-dir DIR``); without it the site is built into a
temporary folder first. The pages are served on a free port of 127.0.0.1 and opened by headless Chromium
(Debian's ``chromium``, driven by playwright from the ``docs`` extra, with the flags of
``tests/project/test_docs_browser.py``); requests to other hosts are aborted.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
CHROMIUM = os.environ.get("CWLA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: figure -> (page, anchor to scroll to or None)
SHOTS = {"site_home.png": ("", None), "site_api.png": ("api/cwla/", "cwla.evaluate")}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def build(out: pathlib.Path) -> pathlib.Path:
    """The site built into ``out`` by ``mkdocs build --strict``."""
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)], cwd=ROOT,
                   check=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return out


def screenshots(site: pathlib.Path, figures: pathlib.Path = HERE / "figures") -> list[pathlib.Path]:
    """Take :data:`SHOTS` of the site in ``site``; returns the files written."""
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    written = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                          else route.abort())
            page = context.new_page()
            for name, (path, anchor) in SHOTS.items():
                page.goto(base + path, wait_until="load")
                if anchor:
                    # the heading just below the theme's header bar
                    page.evaluate(f'window.scrollTo(0, document.getElementById("{anchor}").getBoundingClientRect().top'
                                  f' + window.scrollY - 70)')
                page.wait_for_timeout(300)
                target = figures / name
                page.screenshot(path=str(target))
                written.append(target)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=pathlib.Path, help="a built site (default: build one)")
    args = parser.parse_args()
    if args.site:
        written = screenshots(args.site)
    else:
        with tempfile.TemporaryDirectory() as folder:
            written = screenshots(build(pathlib.Path(folder) / "site"))
    for path in written:
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
