"""Soak: many CPU tables played through the real services for a given time, then every game
audited (hash chain, deal commitments, replay through the engine).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/hearts_soak REDIS_URL=redis://127.0.0.1:6379/4 \\
        CELERY_QUEUE=hearts-soak python bench/soak.py --minutes 10 --tables 12 --workers 2

With DATABASE_URL and REDIS_URL the moves are made by real Celery worker processes (started
here, logs in /tmp/hearts-soak-worker-*.log) through the broker, exactly as in production:
game_create -> on-commit -> tournaments.cpu_move tasks -> game_execute_command, with the
sweeper (tournaments.sweep, sent every few seconds as beat would) recovering lost tasks.
Without them everything runs in this process (SQLite): the scheduled CPU moves are made in a loop.

Keeps ``--tables`` games running until the time is up, lets the running games finish, then
audits every game it created. Exit status 1 if any audit failed or any game got stuck.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")

BOTS = ["random", "rule"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to keep starting games")
    parser.add_argument("--tables", type=int, default=12, help="games running at once")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes (real mode)")
    parser.add_argument("--drain-minutes", type=float, default=3.0, help="at most this long for the last games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the report here")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    real = bool(os.environ.get("REDIS_URL")) and os.environ.get("DATABASE_URL", "").startswith("postgres")
    if real:
        os.environ["CELERY_EMBEDDED_WORKER"] = "false"
    os.environ.setdefault("HEARTS_CPU_DELAY", "0")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    from bench.database import ensure_database

    ensure_database()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)

    from tournaments.clubs.services import player_get_or_create_cpu
    from tournaments.dispatch import scheduler
    from tournaments.games import eventstore
    from tournaments.games.services import SeatSpec, game_create
    from tournaments.models import Game

    rng = random.Random(args.seed)
    creator = player_get_or_create_cpu(bot_kind="rule")
    workers: list[subprocess.Popen] = []
    local = None
    if real:
        from hearts_league.celery import app

        app.control.purge()
        env = {**os.environ, "LOG_LEVEL": "WARNING", "HEARTS_SWEEP_GRACE": "5"}
        from hearts_league.celery import worker_command

        for index in range(args.workers):
            log = open(f"/tmp/hearts-soak-worker-{index}.log", "w")  # noqa: SIM115
            workers.append(
                subprocess.Popen(
                    worker_command(os.environ.get("CELERY_QUEUE", "hearts"), name=f"soak{index}@%h"),
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        time.sleep(3)
    else:
        local = _LocalScheduler()
        scheduler.backend = local

    def new_table() -> int:
        players = rng.choice([3, 4, 4, 5])
        rules = {"players": players, "end_score": rng.choice([26, 50, 100])}
        seats = [SeatSpec("cpu", bot=rng.choice(BOTS)) for _ in range(players)]
        return game_create(creator=creator, rules=rules, seats=seats).pk

    started = time.monotonic()
    stop_at = started + args.minutes * 60
    created: list[int] = []
    running: set[int] = set()
    last_sweep = 0.0
    try:
        while True:
            now = time.monotonic()
            if now < stop_at:
                while len(running) < args.tables:
                    game_id = new_table()
                    created.append(game_id)
                    running.add(game_id)
            elif not running or now > stop_at + args.drain_minutes * 60:
                break
            if real:
                if now - last_sweep > 5:
                    app.send_task("tournaments.sweep")  # beat's job
                    last_sweep = now
                time.sleep(0.5)
            else:
                local.run(200)
            finished = set(
                Game.objects.filter(pk__in=running, status=Game.Status.FINISHED).values_list("pk", flat=True)
            )
            running -= finished
            dead = [w for w in workers if w.poll() is not None]
            if dead:
                print(f"a worker exited with {dead[0].returncode}", file=sys.stderr)
                break
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()
    played = time.monotonic() - started

    failures, events = [], 0
    statuses = collections.Counter()
    eventstore.engine_cache.clear()  # audit from the stored log alone
    for game in Game.objects.filter(pk__in=created).order_by("pk"):
        statuses[game.status] += 1
        report = eventstore.audit_game(game)
        events += report.events_checked
        if not report.ok:
            failures.append(report.to_dict())
    stuck = sorted(running)
    result = {
        "mode": "celery workers + PostgreSQL + Redis" if real else "in-process",
        "minutes": round(played / 60, 2),
        "tables_at_once": args.tables,
        "games_created": len(created),
        "games_finished": statuses.get(Game.Status.FINISHED, 0),
        "games_unfinished": len(stuck),
        "events": events,
        "audit_failures": len(failures),
        "events_per_second": round(events / played, 1) if played else 0.0,
    }
    print(json.dumps(result, indent=2))
    for failure in failures[:20]:
        print("AUDIT FAILED", failure, file=sys.stderr)
    if stuck:
        print("UNFINISHED", stuck[:20], file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "failures": failures, "unfinished": stuck}, indent=2))
    return 1 if failures or stuck else 0


class _LocalScheduler:
    """In-process stand-in for Celery: CPU moves are queued and made by ``run``."""

    def __init__(self):
        self.pending: collections.deque = collections.deque()

    def cpu_move(self, game_id, seq, delay):
        self.pending.append((game_id, seq))

    def turn_timer(self, game_id, deadline):
        pass  # CPU tables have no turn timers

    def game_finished(self, game_id):
        from tournaments.autoplay.tasks import game_finished

        game_finished(game_id)

    def away_check(self, game_id, seat, since, delay):
        pass

    def run(self, limit: int) -> None:
        from tournaments.autoplay import moves as turns

        for _ in range(min(limit, len(self.pending))):
            game_id, seq = self.pending.popleft()
            turns.game_cpu_move(game_id=game_id, seq=seq)


if __name__ == "__main__":
    sys.exit(main())
