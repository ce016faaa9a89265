"""The board widget in a real browser: JupyterLab on a free loopback port,
a test notebook opened in headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium), the widget cell run, a point
clicked, the engine's reply stone waited for, the board and the saved SGF
checked. A screenshot is kept in ``build/board_widget_e2e.png``.

Skipped when Chromium, its driver or selenium is missing, except under
``CI=true``, where ``.ci/run`` installs them: there it fails instead, so the
test cannot silently stop running. Every wait is bounded; the server, its
kernel and the browser are stopped in any case.
"""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from mockgo.data import sgf_reader
from mockgo.go.board import BLACK, WHITE

REPO = Path(__file__).resolve().parent.parent
SCREENSHOT = REPO / "build" / "board_widget_e2e.png"
E5 = 40  # on 9x9

CELL = """\
from mockgo.board_widget import play

widget = play("random:seed=1", size=9, save_as="e2e-game.sgf")
widget"""


def browser_or_skip():
    """The paths of Chromium and chromedriver (Debian's), or skip (fail on CI)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
    try:
        import selenium  # noqa: F401
    except ImportError:
        chromium = None
    if chromium and driver:
        return chromium, driver
    why = ("no Chromium, chromedriver or selenium (apt-get install chromium chromium-driver; "
           "pip install selenium)")
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}, but CI=true: .ci/run should have installed them", pytrace=False)
    pytest.skip(why)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return json.loads(answer.read())


LOGS = []  # the files whose ends a failure shows: JupyterLab's log


def wait_for(what, check, timeout, interval=0.25):
    """Poll ``check()`` until it returns something true; fail after
    ``timeout`` s, with the end of JupyterLab's log."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except Exception:  # not up yet
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            tails = "".join(f"\n--- the end of {log}:\n" + log.read_text(errors="replace")[-3000:]
                            for log in LOGS if log.exists())
            pytest.fail(f"timed out after {timeout} s waiting for {what}{tails}", pytrace=False)
        time.sleep(interval)


def start_jupyterlab(folder, work, port, token):
    """JupyterLab on 127.0.0.1:port serving ``folder``, its configuration,
    settings, runtime files and log kept in ``work`` (no news check)."""
    home = work / "jupyter"
    settings = home / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"), MPLBACKEND="Agg")
    LOGS[:] = [work / "jupyterlab.log"]
    log = open(LOGS[0], "wb")
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={folder}", "--LabApp.news_url=",
               "--allow-root"]  # CI runs as root
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    return process, log


def stop(process, base, token):
    """Shut the kernels and the server down; kill what is left after 10 s."""
    try:
        for kernel in get_json(f"{base}/api/kernels?token={token}"):
            request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}?token={token}",
                                             method="DELETE")
            urllib.request.urlopen(request, timeout=10).close()
    except Exception:
        pass  # the server is gone already
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def test_play_a_move_against_the_engine_in_jupyterlab(tmp_path):
    chromium, chromedriver = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    lab = tmp_path / "lab"  # what JupyterLab serves: the notebook only
    lab.mkdir()
    nbformat.write(notebook, lab / "board.ipynb")
    port, token = free_port(), secrets.token_hex(16)
    base = f"http://127.0.0.1:{port}"
    server, log = start_jupyterlab(lab, tmp_path, port, token)
    driver = None
    try:
        wait_for("JupyterLab to start", lambda: get_json(f"{base}/api/status?token={token}"), 60)
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1300,900", "--no-first-run",
                         f"--user-data-dir={tmp_path / 'chromium'}"):
            options.add_argument(argument)
        # The driver's path is given: selenium never looks for (or downloads) one.
        service = Service(executable_path=chromedriver, log_output=str(tmp_path / "driver.log"))
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(60)
        # /doc: JupyterLab's single-document mode, the notebook without side panels.
        driver.get(f"{base}/doc/tree/board.ipynb?token={token}")

        # The kernel is up when the server says so; then run the cell.
        wait_for("the notebook's kernel to be idle", lambda: any(
            s["kernel"]["execution_state"] == "idle"
            for s in get_json(f"{base}/api/sessions?token={token}")), 90)
        editor = wait_for("the notebook's cell", lambda: driver.find_element(
            By.CSS_SELECTOR, ".jp-Notebook .jp-Cell .cm-content"), 60)
        editor.click()
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT) \
            .perform()
        point = wait_for("the board widget", lambda: driver.find_element(
            By.CSS_SELECTOR, f".mockgo-board-widget .mg-point[data-point='{E5}'] rect"), 120)

        def stones():
            return {int(s.get_attribute("data-point")): s.get_attribute("class")
                    for s in driver.find_elements(By.CSS_SELECTOR,
                                                  ".mockgo-board-widget circle.mg-stone")}

        assert stones() == {}
        ActionChains(driver).move_to_element(point).click().perform()
        both = wait_for("the engine's reply stone", lambda: len(stones()) == 2 and stones(), 60)
        assert both[E5] == "mg-stone mg-black"
        (reply,) = [p for p, kind in both.items() if kind == "mg-stone mg-white"]
        status = driver.find_element(By.CSS_SELECTOR, ".mockgo-board-widget .mg-message").text
        assert status.startswith("random (white) plays"), status
        last = driver.find_element(By.CSS_SELECTOR, ".mockgo-board-widget .mg-last-move")
        assert int(last.get_attribute("data-point")) == reply

        driver.find_element(By.CSS_SELECTOR, ".mockgo-board-widget button.mg-save").click()
        saved = lab / "e2e-game.sgf"
        wait_for("the saved SGF", saved.exists, 30)
        record = sgf_reader.load_sgf(saved)
        assert record.moves == [(BLACK, E5), (WHITE, reply)]
        assert (record.black, record.white, record.size) == ("you", "random", 9)
        wait_for("the widget to say it saved", lambda: "saved" in driver.find_element(
            By.CSS_SELECTOR, ".mockgo-board-widget .mg-message").text, 10)

        SCREENSHOT.parent.mkdir(exist_ok=True)
        assert driver.save_screenshot(str(SCREENSHOT))
    finally:
        if driver is not None:
            driver.quit()
        stop(server, base, token)
        log.close()
