"""Post-game analysis benchmark: a stored 10-hand game analysed through the service layer by 2 workers.

    python bench/analysis.py [--hands 10] [--workers 2] [--seed 1]
    DATABASE_URL=postgres://... REDIS_URL=redis://127.0.0.1:6379/N python bench/analysis.py --celery

It migrates the database it is pointed at (default: a SQLite file in /tmp), stores a game that bots
played for ``--hands`` hands (``engine.analysis_bench.play_game``: the engine bench's game), then
analyses it with the default budget (or HEARTS_ANALYSIS_BUDGET) and reports the wall time from the
request to the last summary, and the decisions per second:

- default: ``--workers`` processes pull the request's chunks one at a time (as Celery workers with
  prefetch 1 do) and run ``analysis_review_chunk``, storing every review as a worker would;
- ``--celery``: real Celery workers (``celery -A hearts_league worker -c N``, needs REDIS_URL) get
  the chunks from ``analysis_request``, as a POST to /api/games/{id}/analysis sends them.

Target (issue 23): under 60 s for 10 hands with 2 workers on this machine.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/hearts-bench-analysis.sqlite3")


def _worker(queue, analysis_id: int) -> None:
    import django

    django.setup()
    from analysis.services import analysis_review_chunk

    while (positions := queue.get()) is not None:
        analysis_review_chunk(analysis_id=analysis_id, positions=positions)


def store_game(hands: int, seed: str):
    """A game the engine bench's bots played for ``hands`` hands, stored as a finished game."""
    from django.db import transaction
    from django.utils import timezone

    from engine.analysis_bench import play_game
    from engine.rules import Rules
    from tournaments.clubs.services import player_register
    from tournaments.games import eventstore
    from tournaments.games.events import DealSaltRevealed, PlayersSeated
    from tournaments.models import Game, GameSeat

    seats = ["rule", "montecarlo", "random", "rule"]
    log = play_game(seed, seats, hands, Rules(players=4, end_score=10_000))
    tag = f"{int(time.time() * 1000)}"
    people = [player_register(username=f"bench-an-{tag}-{i}", password="bench-password-123") for i in range(4)]
    with transaction.atomic():
        game = Game.objects.create(
            rules=Rules(players=4, end_score=10_000).to_dict(),
            status=Game.Status.ACTIVE,
            deal_salt=eventstore.new_deal_salt(),
            started_at=timezone.now(),
        )
        GameSeat.objects.bulk_create([GameSeat(game=game, seat=s, player=people[s]) for s in range(4)])
        seated = PlayersSeated(
            seats=[{"seat": s, "player_id": people[s].pk, "name": "x", "cpu": False} for s in range(4)]
        ).to_dict()
        eventstore.append_events(
            game, [log[0], seated, *log[1:], DealSaltRevealed(salt=game.deal_salt).to_dict()], cause="player"
        )
        game.status, game.finished_at = Game.Status.FINISHED, timezone.now()  # stopped after ``hands`` hands
        game.save()
    return game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--celery", action="store_true", help="real Celery workers (needs REDIS_URL)")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, connections

    from analysis import services
    from analysis.models import GameAnalysis

    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    game = store_game(args.hands, args.seed)
    print(
        f"game {game.pk}: {args.hands} hands, {game.seq} events; budget {services.analysis_budget().to_dict()}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    celery = None
    if args.celery:
        if not settings.REDIS_URL:
            raise SystemExit("--celery needs REDIS_URL")
        celery = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "hearts_league",
                "worker",
                "-c",
                str(args.workers),
                "-Q",
                settings.CELERY_ANALYSIS_QUEUE,
                "--loglevel",
                "WARNING",
            ],
            cwd=ROOT,
        )
        time.sleep(6)  # the worker's start-up (its processes fork after it)
        started = time.perf_counter()
        services.analysis_request(game=game)
    else:
        queue = mp.get_context("fork").Queue()

        class Workers:
            def review_chunks(self, analysis_id, chunks):
                for chunk in chunks:
                    queue.put(chunk)

        started = time.perf_counter()
        services.analysis_request(game=game, runner=Workers())
        analysis_id = GameAnalysis.objects.get(game=game).pk
        connections.close_all()  # the children open their own
        pool = [mp.get_context("fork").Process(target=_worker, args=(queue, analysis_id)) for _ in range(args.workers)]
        for p in pool:
            p.start()
        for _ in pool:
            queue.put(None)
    try:
        while True:
            analysis = GameAnalysis.objects.get(game=game)
            if analysis.status in (GameAnalysis.Status.DONE, GameAnalysis.Status.FAILED):
                break
            time.sleep(0.2)
        wall = time.perf_counter() - started
    finally:
        if celery is not None:
            celery.terminate()
            celery.wait(30)
        else:
            for p in pool:
                p.join()
    n = analysis.decisions_total
    print(
        f"analysis {analysis.status}: {n} decisions in {wall:.1f} s wall = {n / wall:.1f} decisions/s "
        f"({args.workers} {'Celery ' if args.celery else ''}worker processes); target 60 s"
    )
    for row in analysis.summaries.all():
        print(
            f"  seat {row.seat}: mean loss {row.mean_loss:.3f} per decision; blunders {row.blunder}, "
            f"mistakes {row.mistake}, inaccuracies {row.inaccuracy}"
        )
    return 0 if analysis.status == GameAnalysis.Status.DONE else 1


if __name__ == "__main__":
    sys.exit(main())
