"""A real server for the browser tests: ``daphne`` in a subprocess against a migrated SQLite
file, with the embedded Celery worker (no REDIS_URL) playing the CPU seats quickly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[3]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

try:
    import playwright.sync_api as playwright_api
except ImportError:  # pragma: no cover - the dev extra installs it
    playwright_api = None

_skip_reason = (
    "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    if not os.path.exists(CHROMIUM)
    else "needs the playwright package (pip install -e '.[dev]')"
    if playwright_api is None
    else ""
)
pytestmark = pytest.mark.skipif(bool(_skip_reason), reason=_skip_reason or "runs")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(db_path: Path) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE", "CELERY_EMBEDDED_WORKER"}
    }
    env.update(
        DATABASE_URL=f"sqlite:///{db_path}",
        HEARTS_CPU_DELAY="0.05",
        DJANGO_SETTINGS_MODULE="hearts_league.settings",
        HEARTS_PROFILE="development",
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        THROTTLE_AUTH="1000/minute",
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict, *args: str, timeout: float = 120) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory):
    if _skip_reason:
        pytest.skip(_skip_reason)
    db_path = tmp_path_factory.mktemp("e2e") / "e2e.sqlite3"
    env = server_env(db_path)
    manage(env, "migrate", "--noinput")
    manage(env, "seed_demo")
    port = _free_port()
    log = open(db_path.with_suffix(".log"), "w")  # noqa: SIM115 - closed at teardown
    daphne = Path(sys.executable).with_name("daphne")
    command = [str(daphne), "-b", "127.0.0.1", "-p", str(port), "hearts_league.asgi:application"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"daphne did not start; see {log.name}") from None
            time.sleep(0.2)
    yield {"url": url, "env": env, "db": db_path}
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser():
    if _skip_reason:
        pytest.skip(_skip_reason)
    with playwright_api.sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, live_server_url):
    context = browser.new_context(base_url=live_server_url["url"], viewport={"width": 1100, "height": 900})
    context.set_default_timeout(15000)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
