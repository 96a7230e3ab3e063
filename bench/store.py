"""Event store benchmark: commands per second through the service layer, and audit time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/hearts_bench python bench/store.py

It migrates the database it is pointed at (default: a SQLite file in /tmp), then
1. plays ``--command-games`` games to the end through ``game_execute_command`` (row lock,
   expected_seq check, append, hash chain; the lowest legal card each time) and reports
   commands per second;
2. stores ``--audit-games`` finished games (whole games played by the engine, appended as
   logs through the event store) and times ``audit_game`` over all of them.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/hearts-bench-store.sqlite3")
os.environ.setdefault("HEARTS_CPU_DELAY", "0")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--command-games", type=int, default=10)
    parser.add_argument("--audit-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import django

    from bench.database import ensure_database

    ensure_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    import engine
    from tournaments.clubs.services import player_register
    from tournaments.games import eventstore
    from tournaments.games.events import DealSaltRevealed, PlayersSeated
    from tournaments.games.services import SeatSpec, game_create, game_execute_command
    from tournaments.models import Game, GameSeat

    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    tag = f"{int(time.time())}"
    people = [player_register(username=f"bench-{tag}-{i}", password="bench-password-123") for i in range(4)]

    # 1. commands through the service layer
    from tournaments.dispatch import scheduler

    class NoScheduler:  # no worker in this benchmark: nothing to schedule
        def __getattr__(self, name):
            return lambda *a, **k: None

    scheduler.backend = NoScheduler()
    commands, started = 0, time.perf_counter()
    for _ in range(args.command_games):
        game = game_create(
            creator=people[0], seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]]
        )
        while True:
            game = Game.objects.get(pk=game.pk)
            if game.status == Game.Status.FINISHED:
                break
            seat, view = eventstore.read_engine_game(game, lambda s: (s.to_act[0], s.view(s.to_act[0])))
            if view["phase"] == "passing":
                command = {"type": "pass", "cards": view["hand"][:3]}
            elif view["phase"] == "moon_choice":
                command = {"type": "moon_choice", "choice": "add_to_others"}
            else:
                command = {"type": "play", "card": view["legal_plays"][0]}
            game_execute_command(
                game_id=game.pk, player=people[seat], command=command, expected_seq=game.seq, command_id=f"b{game.seq}"
            )
            commands += 1
    elapsed = time.perf_counter() - started
    print(
        f"service layer: {commands} commands in {elapsed:.1f} s = {commands / elapsed:,.0f} commands/s "
        f"({args.command_games} whole games, one process)"
    )

    # 2. audit finished games
    rng = random.Random(args.seed)
    games, events = [], 0
    started = time.perf_counter()
    for _ in range(args.audit_games):
        state = engine.Game.new(engine.Rules(), seed=rng.randrange(2**32), players=["A", "B", "C", "D"])
        while state.phase != "game_over":
            seat = state.to_act[0]
            if state.phase == "passing":
                state.pass_cards(seat, state.hand(seat)[:3])
            elif state.phase == "moon_choice":
                state.choose_moon(seat, "add_to_others")
            else:
                plays = state.legal_plays(seat)
                state.play(seat, plays[rng.randrange(len(plays))])
        with transaction.atomic():
            game = Game.objects.create(
                rules=state.rules.to_dict(),
                status=Game.Status.ACTIVE,
                deal_salt=eventstore.new_deal_salt(),
                started_at=timezone.now(),
            )
            GameSeat.objects.bulk_create([GameSeat(game=game, seat=s, player=people[s]) for s in range(4)])
            log = [e.to_dict() for e in state.events]
            seated = PlayersSeated(
                seats=[{"seat": s, "player_id": people[s].pk, "name": "x", "cpu": False} for s in range(4)]
            ).to_dict()
            log = [log[0], seated, *log[1:], DealSaltRevealed(salt=game.deal_salt).to_dict()]
            eventstore.append_events(game, log, cause="player")
            game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
            game.final_totals, game.winner_seat = list(state.totals), state.winner
            game.save()
        games.append(game.pk)
        events += game.seq
    print(f"stored {len(games)} finished games ({events:,} events) in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    failures = 0
    for game in Game.objects.filter(pk__in=games).iterator():
        failures += not eventstore.audit_game(game).ok
    elapsed = time.perf_counter() - started
    print(
        f"audit: {len(games)} games, {events:,} events in {elapsed:.1f} s = {len(games) / elapsed:,.1f} games/s, "
        f"{events / elapsed:,.0f} events/s; failures: {failures}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
