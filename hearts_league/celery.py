"""The Celery app, configured for reliability (JSON only, late acks, prefetch 1).

With Redis (``REDIS_URL``) tasks go to real workers: ``celery -A hearts_league worker``.
Without it the broker is kombu's in-memory transport and :func:`start_embedded_worker`
runs a worker on a thread of the web process, so countdowns (turn timers) still fire on
time instead of at once, which ``task_always_eager`` would do.
"""

import os
import sys
import threading

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")

app = Celery("hearts_league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
    timezone="UTC",
)
app.autodiscover_tasks()
app.autodiscover_tasks(["tournaments.autoplay"])  # the wing that plays for a seat


_embedded_lock = threading.Lock()
_embedded_worker = None
_embedded_threads: list[threading.Thread] = []
_embedded_stop = threading.Event()


def worker_command(queue: str, name: str | None = None) -> list[str]:
    """The command line of a Celery worker process for this project, as the benchmarks and the
    tests that need a real worker start one (threads, two at a time, none of the cluster chatter
    a lone worker does not need)."""
    named = ["-n", name] if name else []
    return [
        *(sys.executable, "-m", "celery", "-A", "hearts_league", "worker", "--pool=threads", "--concurrency=2"),
        *("-Q", queue, "--loglevel=WARNING", *named),
        *("--without-heartbeat", "--without-mingle", "--without-gossip"),
    ]


def start_embedded_worker():
    """Start (once per process) a Celery worker thread for the in-memory broker."""
    global _embedded_worker
    from celery.contrib.testing.worker import TestWorkController

    with _embedded_lock:
        if _embedded_worker is not None:
            return _embedded_worker
        worker = TestWorkController(
            app,
            pool="threads",
            concurrency=2,
            loglevel="WARNING",
            logfile=None,
            ready_callback=None,
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        thread = threading.Thread(target=worker.start, name="embedded-celery-worker", daemon=True)
        thread.start()
        worker.ensure_started()
        beat = threading.Thread(target=_embedded_beat, name="embedded-celery-beat", daemon=True)
        beat.start()
        _embedded_threads[:] = [thread, beat]
        _embedded_worker = worker
        return worker


def embedded_worker_running() -> bool:
    return _embedded_worker is not None


def stop_embedded_worker(timeout: float = 10.0) -> None:
    """Stop the embedded worker and beat threads, as Celery's own test worker stops (the test
    suite does, before its database is dropped under them)."""
    from celery.worker import state

    global _embedded_worker
    with _embedded_lock:
        if _embedded_worker is None:
            return
        _embedded_stop.set()
        state.should_terminate = 0  # type: ignore[assignment]  # celery-types: None only; Celery sets exit codes
        for thread in _embedded_threads:
            thread.join(timeout)
        state.should_terminate = None
        _embedded_stop.clear()
        _embedded_threads.clear()
        _embedded_worker = None


def _embedded_beat():
    """Beat's job without a beat process: send the periodic tasks on their schedule."""
    import time

    entries = list(app.conf.beat_schedule.values())
    due = {entry["task"]: time.monotonic() + float(entry["schedule"]) for entry in entries}
    while not _embedded_stop.wait(1):
        for entry in entries:
            if time.monotonic() >= due[entry["task"]]:
                app.send_task(entry["task"])
                due[entry["task"]] = time.monotonic() + float(entry["schedule"])
