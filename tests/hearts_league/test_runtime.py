"""The server process's garbage-collector settings (hearts_league.runtime)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_freezes_what_start_up_loaded_and_collects_young_objects_less_often():
    # A fresh interpreter, as Daphne loads the application: the test process's own collector
    # settings are not the server's.
    probe = "import gc, hearts_league.asgi; print(gc.get_freeze_count(), *gc.get_threshold())"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "CELERY_EMBEDDED_WORKER": "false"},
    )
    frozen, *thresholds = map(int, out.stdout.split())
    assert frozen > 50_000  # Django, DRF, Channels and the URLconf: never scanned again
    assert thresholds == [10_000, 10, 100]
