"""The series as a site (``make book``): the book's contents name every page
of docs/, every executed notebook and one reference page per subpackage;
every public name has a docstring; and (long: make test-long) the strict build passes and
its pages work in a browser.

The long test (make test-long) builds the book as ``make book`` does, into a temporary
folder (about two minutes on a busy 2-core machine: most of it Sphinx
writing the notebooks' pages), serves it on 127.0.0.1 and opens it in
Debian's Chromium (selenium and chromium-driver, as the board widget's test
does; skipped without them, failed under ``CI=true``): a notebook page shows
its plots and its code, a name in its prose links to the reference of a
function its code calls, and the search finds that function.
"""

import collections
import functools
import http.server
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import dev_extra_module
from test_board_widget_e2e import browser_or_skip

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
try:
    import mockgo_api  # docs/_ext: the book's Sphinx extension (Sphinx: the docs extra)
except ImportError:
    mockgo_api = None

# The pages the contents list, read from _toc.yml's "file:" lines (no YAML parser needed).
TOC = re.findall(r"^\s*(?:-\s*)?(?:file|root):\s*(\S+)\s*$",
                 (DOCS / "_toc.yml").read_text(encoding="utf-8"), re.MULTILINE)


@pytest.fixture(scope="module")
def extension():
    """docs/_ext/mockgo_api.py, which needs Sphinx (the docs extra; the dev
    extra installs it): skipped without, failed under CI=true."""
    dev_extra_module("sphinx", "the book")
    return mockgo_api


def api_pages():
    """``{page: package}`` of docs/api/ (each stub names its package)."""
    pages = {}
    for path in sorted((DOCS / "api").glob("*.md")):
        found = re.search(r"\.\. mockgo-api:: (\S+)", path.read_text(encoding="utf-8"))
        if found:
            pages[f"api/{path.stem}"] = found.group(1)
    return pages


def test_the_contents_name_every_page_and_every_subpackage_has_a_reference_page():
    pages = {p.relative_to(DOCS).with_suffix("").as_posix()
             for p in [*DOCS.glob("*.md"), DOCS / "matches" / "README.md",
                       *(DOCS / "notebooks").glob("*.ipynb"), *(DOCS / "api").glob("*.md")]}
    assert sorted(pages - set(TOC)) == [], "pages missing from docs/_toc.yml"
    assert sorted(set(TOC) - pages) == [], "docs/_toc.yml names pages that do not exist"
    subpackages = {"mockgo"} | {f"mockgo.{p.parent.name}"
                                for p in (ROOT / "mockgo").glob("*/__init__.py")}
    assert sorted(api_pages().values()) == sorted(subpackages)


def test_every_public_name_has_a_docstring(extension):
    """What the strict build would fail on first, without building: a module
    without a docstring, a public name (``__all__``) without one."""
    problems = [problem for package in api_pages().values()
                for module in extension.modules_of(package)
                for problem in extension.module_entries(module)[1]]
    assert problems == []


def test_the_reference_documents_every_public_name_once(extension):
    """One home per name: each public name is documented on one page, by
    the module that defines it; only the package's front door (``from
    mockgo import Board``) lists names defined elsewhere, as links."""
    documented, handed_on = collections.Counter(), []
    for package in api_pages().values():
        for module in extension.modules_of(package):
            lines = extension.module_entries(module)[0]
            documented.update(line.split("::", 1)[1].strip() for line in lines
                              if re.match(r"\.\. (auto(class|function|data|exception)|py:data)::",
                                          line))
            handed_on += [module.__name__ for line in lines if line.startswith("Also public in")]
    assert [name for name, count in documented.items() if count > 1] == []
    assert handed_on == ["mockgo"]
    assert "mockgo.nets.architectures.ARCHITECTURES" in documented


def test_a_names_home_is_found_through_re_exports(extension):
    """What links a name in prose (or a docstring's reference) to the page
    where it is documented: the module that defines it."""
    home = extension._home
    assert home("mockgo.play.policy_player.PolicyPlayer") == \
        "mockgo.play.policy_player.PolicyPlayer"
    # a name a module imports to use it: zero.run plays zero.match's play_match
    assert home("mockgo.zero.run.play_match") == "mockgo.zero.match.play_match"
    assert home("mockgo.notebook.check") == "mockgo.notebook.check"
    assert home("mockgo.Board.random_playout") == "mockgo.go.board.Board.random_playout"
    assert home("mockgo.BLACK") == "mockgo.go.kernels.BLACK"
    assert home("mockgo.search.no_such_name") is None


# ------------------------------------------------------------------ long (make test-long)


def build_book(out):
    """The strict build of ``make book``, into ``out``; its seconds."""
    started = time.monotonic()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build",
                           str(DOCS), "--all", "--path-output", str(out), "--keep-going",
                           "-W", "-n"], capture_output=True, text=True, env=env, timeout=1800)
    log = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    problems = [line for line in log.splitlines() if ": WARNING:" in line or ": ERROR:" in line]
    assert done.returncode == 0, "\n".join(problems[:40]) or log[-4000:]
    return time.monotonic() - started


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    dev_extra_module("jupyter_book", "the book")
    out = tmp_path_factory.mktemp("book")
    seconds = build_book(out)
    print(f"the strict book build took {seconds:.0f} s")
    return out / "_build" / "html"


@pytest.fixture
def served(site):
    """The site on a free port of 127.0.0.1, for the test's duration."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def wait_for(what, check, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except Exception:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}", pytrace=False)
        time.sleep(0.25)


@pytest.mark.long
def test_the_built_site_shows_notebooks_links_their_names_and_searches(site, served, tmp_path):
    chromium, chromedriver = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    assert (site / "index.html").is_file() and (site / "_static" / "mathjax" / "MathJax.js").is_file()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1300,900", "--no-first-run",
                     f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(argument)
    service = Service(executable_path=chromedriver, log_output=str(tmp_path / "driver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    try:
        # The entry page lists the notebooks and the reference.
        driver.get(f"{served}/index.html")
        hrefs = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "article a")]
        assert any(h.endswith("notebooks/01_supervised.html") for h in hrefs), hrefs
        assert any(h.endswith("api/index.html") for h in hrefs), hrefs

        # A notebook page: its plots (loaded images), its code, and a name in its
        # prose linked to the reference of a function that its code calls.
        for name in ("01_supervised", "02_value_net", "03_policy_gradient", "04_zero_selfplay",
                     "05_arena"):
            driver.get(f"{served}/notebooks/{name}.html")
            code = "\n".join(c.text for c in driver.find_elements(By.CSS_SELECTOR,
                                                                   "div.cell_input pre"))
            called = [a for a in driver.find_elements(By.CSS_SELECTOR, "a.mockgo-api-link")
                      if re.search(rf"\b{re.escape(a.text.split('.')[-1].split('(')[0])}\(", code)]
            if called:
                break
        assert code and called, "no notebook links a function that its code calls"
        images = wait_for("the notebook's plots to load", lambda: [
            image for image in driver.find_elements(By.CSS_SELECTOR, "div.cell_output img")
            if driver.execute_script("return arguments[0].complete && "
                                     "arguments[0].naturalWidth > 0", image)])
        assert len(images) >= 1
        link = called[0]
        target = link.get_attribute("href")
        anchor = target.split("#", 1)[1]
        function = anchor.rsplit(".", 1)[-1]
        link.click()
        wait_for("the reference page", lambda: "/api/" in driver.current_url)
        entry = driver.find_element(By.ID, anchor)
        assert entry.tag_name == "dt" and function in entry.text, entry.text

        # The search finds it, and links its reference page.
        driver.get(f"{served}/search.html?q={function}")
        results = wait_for("search results", lambda: [
            a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR,
                                                                 "#search-results a")
            if "/api/" in a.get_attribute("href")], timeout=60)
        assert any(anchor in href or href.split("#")[0] == target.split("#")[0]
                   for href in results), results
    finally:
        driver.quit()
