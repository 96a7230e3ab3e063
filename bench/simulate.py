"""Simulated tournament benchmark: ``manage.py simulate_tournament`` timed (wall and CPU, with
the SQL statements it sent), then every game it played audited (hash chain, deal commitments,
replay through the engine).

    python bench/simulate.py                       # SQLite file in /tmp
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/hearts_bench python bench/simulate.py

The issue-20 target: 40 ``rule`` CPUs, 5 Swiss rounds (4-hand rounds) in under 60 s wall.
CPU time is this process's (the database server's is not in it); on a shared machine compare
CPU times, and wall times only from runs made side by side. Exit status 1 if an audit fails.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/hearts-bench-simulate.sqlite3")
os.environ.setdefault("HEARTS_CPU_DELAY", "0")
os.environ.setdefault("LOG_LEVEL", "WARNING")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bots", default="rule")
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    import django

    from bench.database import ensure_database

    ensure_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from tournaments.games.eventstore import audit_game
    from tournaments.models import Game, Tournament

    call_command("migrate", verbosity=0, interactive=False)
    statements = 0

    def count(execute, sql, params, many, context):
        nonlocal statements
        statements += 1
        return execute(sql, params, many, context)

    out = io.StringIO()
    wall, cpu = time.perf_counter(), time.process_time()
    with connection.execute_wrapper(count):
        call_command(
            "simulate_tournament",
            players=args.players,
            rounds=args.rounds,
            bots=args.bots,
            hands=args.hands,
            seed=args.seed,
            no_progress=True,
            stdout=out,
        )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu

    tournament = Tournament.objects.order_by("-pk").first()
    games = Game.objects.filter(competition_table__round__tournament=tournament)
    moves = sum(game.seq for game in games)  # events, a little more than moves (deals, commitments)
    failures = [report for report in map(audit_game, games.iterator()) if not report.ok]
    print(f"database: {connection.vendor}; {out.getvalue().splitlines()[0]}")
    print(
        f"{args.players} {args.bots} CPUs, {args.rounds} rounds of {args.hands} hands: "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU in this process; {games.count()} games, {moves:,} events, "
        f"{statements:,} SQL statements ({statements / max(moves, 1):.1f} per event)"
    )
    print(f"audit: {games.count()} games, failures: {len(failures)}")
    for report in failures:
        print(f"  game {report.game_id}: event {report.first_bad_seq}: {report.reason}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
