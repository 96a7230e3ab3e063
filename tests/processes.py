"""Real processes for tests that need them (a Celery worker, Daphne) against the test database."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from django.conf import settings as django_settings

from hearts_league.celery import worker_command

ROOT = Path(__file__).resolve().parents[1]
USING_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


def database_url() -> str:
    db = django_settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=60.0, every=0.1, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def process_env(**extra) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "LOG_LEVEL": "WARNING",
        **{k: str(v) for k, v in extra.items()},
    }


def start_worker(log_path: Path, **extra_env) -> subprocess.Popen:
    return subprocess.Popen(
        worker_command(django_settings.CELERY_TASK_DEFAULT_QUEUE),
        cwd=ROOT,
        env=process_env(**extra_env),
        stdout=log_path.open("w"),
        stderr=subprocess.STDOUT,
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
