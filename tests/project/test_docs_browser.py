"""The documentation site in a real browser: headless Chromium opens every page of the built site, served on
127.0.0.1, and finds no console error, no broken local link, anchor or image, no signature running off the
API pages, and a site search that answers.

Needs Debian's ``chromium`` (``apt-get install chromium``) and playwright (the ``docs`` extra), which drives
that Chromium over the DevTools protocol (``executable_path``: playwright downloads no browser here). The
site is the one ``CWLA_SITE_DIR`` names (``mkdocs build --strict --site-dir DIR``; CI builds it once), else
one built here. ``CWLA_SITE_URL`` is where CI serves it (``python -m http.server``); without it the test
serves the folder itself. Skips, saying why, without Chromium, playwright, or a site.

The machine reaches no web server but its own: requests to other hosts (the GitHub API the theme asks for
the repository's stars) are aborted, and a console error that is only such a request failing is not the
site's fault; every other console error, and every uncaught exception, fails the test.
"""

from __future__ import annotations

import functools
import http.server
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # the slow tier (pyproject.toml): deselect with -m "not slow"

CHROMIUM = os.environ.get("CWLA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: what headless Chromium needs on this machine (root, no GPU, no network); playwright gives each launch a
#: fresh temporary profile (the --user-data-dir of a new browser)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright: "
                               "pip install -e '.[docs]'")
if not os.path.isfile(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set CWLA_CHROMIUM)", allow_module_level=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    given = os.environ.get("CWLA_SITE_DIR")
    if given:
        if not (pathlib.Path(given) / "index.html").is_file():
            pytest.skip(f"CWLA_SITE_DIR={given} holds no built site (mkdocs build --strict --site-dir {given})")
        return pathlib.Path(given)
    pytest.importorskip("mkdocs", reason="no site to open: set CWLA_SITE_DIR, or pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base(site):
    """The site's address: CI's server (``CWLA_SITE_URL``), or one started here on a free port of 127.0.0.1."""
    given = os.environ.get("CWLA_SITE_URL")
    if given:
        yield given.rstrip("/") + "/"
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS, timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()


class Visit:
    """A page opened in the browser, with what went wrong while it loaded."""

    def __init__(self, browser, base: str):
        self.base = base
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.external: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda err: self.errors.append(f"uncaught exception: {err}"))
        self.page.on("response", self._response)
        self.page.on("requestfailed", self._failed)

    def _local(self, url: str) -> bool:
        return url.startswith(self.base) or url.startswith(("data:", "blob:", "about:"))

    def _route(self, route) -> None:
        if self._local(route.request.url):
            route.continue_()
        else:  # no network here: another host's resource is not fetched
            self.external.append(route.request.url)
            route.abort()

    def _console(self, message) -> None:
        if message.type != "error":
            return
        where = (message.location or {}).get("url", "")
        if where in self.external and message.text.startswith("Failed to load resource"):
            return  # an aborted request to another host
        self.errors.append(f"console error: {message.text} ({where})")

    def _response(self, response) -> None:
        if response.url.startswith(self.base) and response.status >= 400:
            self.errors.append(f"{response.status} for {response.url}")

    def _failed(self, request) -> None:
        if request.url.startswith(self.base):
            self.errors.append(f"request failed: {request.url} ({request.failure})")

    def open(self, url: str) -> None:
        self.page.goto(url, wait_until="load")
        self.page.wait_for_timeout(200)  # the theme's scripts run after load

    def close(self) -> None:
        self.context.close()


class Links:
    """Status and ids of the site's local pages, fetched once each. With ``site`` and ``base``, a link to a folder
    must find the folder's index.html (http.server would list a folder without one: a static host answers 404)."""

    def __init__(self, site: pathlib.Path | None = None, base: str = ""):
        self.site, self.base = site, base
        self.status: dict[str, int] = {}
        self.ids: dict[str, set[str]] = {}

    def fetch(self, url: str) -> int:
        if url not in self.status:
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    self.status[url] = response.status
                    body = response.read()
                    if "html" in response.headers.get("Content-Type", ""):
                        text = body.decode("utf-8", "replace")
                        self.ids[url] = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))
            except urllib.error.HTTPError as err:
                self.status[url] = err.code
        return self.status[url]

    def problems(self, hrefs: list[str]) -> list[str]:
        out = []
        for href in sorted(set(hrefs)):
            url, _, fragment = href.partition("#")
            status = self.fetch(url)
            if self.site is not None and url.startswith(self.base) and url.endswith("/"):
                folder = self.site / urllib.parse.unquote(url[len(self.base):])
                if not (folder / "index.html").is_file():
                    status = 404
            if status != 200:
                out.append(f"link {href}: HTTP {status}")
            elif fragment and url in self.ids and urllib.parse.unquote(fragment) not in self.ids[url]:
                out.append(f"link {href}: no element with id {urllib.parse.unquote(fragment)!r} on {url}")
        return out


_IMAGES = """async () => Promise.all(Array.from(document.images).map(async (img) => {
    const probe = new Image();
    probe.src = img.currentSrc || img.src;
    try { await probe.decode(); return [img.src.slice(0, 120), probe.naturalWidth]; }
    catch (err) { return [img.src.slice(0, 120), 0]; }
}))"""


def _pages(site: pathlib.Path) -> list[str]:
    return sorted(path.relative_to(site).parent.as_posix() for path in site.rglob("index.html"))


def test_the_site_has_its_pages(site):
    pages = _pages(site)
    assert {".", "api/cwla", "api/discpower", "models", "metrics"} <= set(pages)
    assert len(pages) >= 15


def test_every_page_loads_cleanly_with_working_links_and_images(site, base, browser):
    """No console error or uncaught exception, every local link (and its anchor) and image resolves."""
    links, problems, checked = Links(site, base), {}, {"links": 0, "images": 0}
    visit = Visit(browser, base)
    try:
        for page in _pages(site):
            url = base if page == "." else f"{base}{page}/"
            visit.errors = []
            visit.open(url)
            hrefs = visit.page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
            local = [h for h in hrefs if h.startswith(base)]
            images = visit.page.evaluate(_IMAGES)
            sources = visit.page.eval_on_selector_all("img[src]", "els => els.map(i => i.src)")
            found = visit.errors + links.problems(local)
            found += [f"image {src} does not load" for src, width in images if width == 0]
            found += [f"image {src}: HTTP {links.fetch(src)}" for src in sources
                      if src.startswith(base) and links.fetch(src) != 200]
            checked["links"] += len(local)
            checked["images"] += len(images)
            if found:
                problems[page] = found
    finally:
        visit.close()
    assert not problems, "\n".join(f"{page}: {problem}" for page, found in problems.items() for problem in found)
    # the check saw something: the API pages alone link every entry, and the pages show their figures
    assert checked["links"] > 1000 and checked["images"] >= 3, checked


@pytest.mark.parametrize("query, page", [("holm", "compare/"), ("ndcg", "metrics/")])
def test_the_site_search_finds(base, browser, query, page):
    """Typing into the search box lists results that mark the word and lead to pages that exist."""
    visit = Visit(browser, base)
    try:
        visit.open(base)
        box = visit.page.locator("input.md-search__input")
        box.click()
        box.type(query, delay=20)
        visit.page.wait_for_selector(".md-search-result__item", timeout=20_000)
        meta = visit.page.inner_text(".md-search-result__meta")
        hrefs = visit.page.eval_on_selector_all(".md-search-result__item a", "els => els.map(a => a.href)")
        marked = visit.page.eval_on_selector_all(".md-search-result__item mark", "els => els.map(m => m.textContent)")
        errors = visit.errors
    finally:
        visit.close()
    assert re.match(r"\d+ matching documents?", meta), meta
    assert any(word.lower() == query for word in marked), marked[:10]
    assert f"{base}{page}" in {h.partition("#")[0] for h in hrefs}, hrefs[:10]
    assert Links().problems(hrefs) == [] and errors == []


@pytest.mark.parametrize("package", ["cwla", "discpower"])
def test_api_signatures_fit_the_page(base, browser, package):
    """No signature block of the API reference is wider than the page (long lines wrap)."""
    visit = Visit(browser, base)
    try:
        visit.open(f"{base}api/{package}/")
        sizes = visit.page.eval_on_selector_all(
            ".doc-signature code", "els => els.map(e => [e.scrollWidth, e.clientWidth, e.textContent.slice(0, 60)])")
        article = visit.page.eval_on_selector("article", "e => e.clientWidth")
    finally:
        visit.close()
    assert len(sizes) > 50
    assert [s for s in sizes if s[0] > s[1] + 1 or s[1] > article] == []


_WIDE = ("els => els.filter(e => e.scrollWidth > e.clientWidth + 1)"
         ".map(e => e.textContent.split('\\n').reduce((a, b) => a.length >= b.length ? a : b))")


def test_the_home_page_starts_with_install_and_quick_start(base, browser):
    visit = Visit(browser, base)
    try:
        visit.open(base)
        headings = visit.page.eval_on_selector_all("article h2", "els => els.map(h => h.textContent.trim())")
        text = visit.page.inner_text("article")
        wide = visit.page.eval_on_selector_all("article pre > code", _WIDE)
    finally:
        visit.close()
    assert [h.rstrip("¶").strip() for h in headings[:3]] == ["Install", "Quick start", "Where to go next"]
    assert "pip install ." in text and "cwla.evaluate(" in text
    assert wide == []  # no code block to scroll sideways: the longest line of each that would need it


def test_the_models_page_code_fits(base, browser):
    visit = Visit(browser, base)
    try:
        visit.open(f"{base}models/")
        blocks = visit.page.eval_on_selector_all("article pre > code", "els => els.length")
        wide = visit.page.eval_on_selector_all("article pre > code", _WIDE)
    finally:
        visit.close()
    assert blocks >= 3 and wide == []
