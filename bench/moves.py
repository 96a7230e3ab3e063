"""The project's own CPU per card play, in one process: no server and no sockets.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/hearts_bench DEBUG=false python bench/moves.py

``bench/load.py`` measures a play end to end, and its figures move with everything on the
machine (Daphne, Twisted, Redis, the 400 clients). This one keeps the project's part of a live
play: ``--tables`` games of four seats play one hand at once on one event loop, each command
through ``game_execute_command_async`` (on PostgreSQL a move on the cached state is written from
the loop, as a Daphne process writes it; each table's first pass goes to the database thread,
where its state is first read), then each of the four seats' update frames built from this
process's memory, as every connection builds its own for a notification. The tables are
connected (each seat's catch-up from the database) before the measurement starts.

It reports the process's CPU per card played (user and system; the passes, and the frames
after them, are in it, as they are in a play's share of a hand), the frames' share of it (the
loop thread's CPU around building them) and the rest: the commands (the engine, the event rows,
the statement, the notification), the loop connections opened in each run, and this harness
choosing its moves and reading the frames back. Not in it: parsing the client's frame and the
``ack`` (``bench/load.py`` has them). Notifications go to the channel layer as in a server
(Redis when ``REDIS_URL`` is set, else the in-memory layer, where nobody listens); the follow-ups
of a finished game are dropped. ``--profile`` profiles the last run (cProfile, the loop thread
only: on SQLite the commands run on the database thread and are not in it) and prints its
heaviest functions; that run's figures include the profiler's cost.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import resource
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/hearts-bench-moves.sqlite3")
os.environ.setdefault("HEARTS_CPU_DELAY", "0")


class Seat:
    """One seat's connection, reduced to what it does for a notification: build its frame."""

    def __init__(self, consumer, seat: int, player):
        self.consumer, self.seat, self.player = consumer, seat, player
        self.latest: dict | None = None  # the last update frame with a state

    def command(self) -> dict | None:
        """What this seat sends now (the load clients' choice: three cards, the lowest legal
        card, add to the others), or None if it is not to act."""
        state = (self.latest or {}).get("state")
        if state is None or self.seat not in state["to_act"]:
            return None
        if state["phase"] == "passing":
            return None if state["passed"] else {"type": "pass", "cards": state["hand"][:3]}
        if state["phase"] == "playing":
            return {"type": "play", "card": state["legal_plays"][0]}
        if state["phase"] == "moon_choice":
            return {"type": "moon_choice", "choice": "add_to_others"}
        return None


async def connect_table(game, people) -> list[Seat]:
    """The table's four seats, each caught up from the database as a connection is."""
    import orjson
    from channels.db import database_sync_to_async

    from tournaments.games.visibility import ViewerKind
    from tournaments.live.consumers import GameConsumer

    seats = []
    for number, player in enumerate(people):
        consumer = GameConsumer()
        consumer.game_id, consumer.player, consumer.user, consumer.seat = game.pk, player, player.user, number
        consumer.unseated_kind, consumer.sent_seq, consumer.seat_seq = ViewerKind.MEMBER, 0, 0
        seats.append(Seat(consumer, number, player))
    for seat in seats:  # connecting: the catch-up from the database
        frame, seq, _ = await database_sync_to_async(seat.consumer._frames_after)(0, None)
        seat.consumer.sent_seq = seat.consumer.seat_seq = seq
        seat.latest = orjson.loads(frame)
    return seats


async def play_table(game, seats: list[Seat], figures: dict) -> None:
    """Play the table's hand: each command, then each seat's update frame from memory."""
    import orjson
    from channels.db import database_sync_to_async

    from tournaments.games.services import game_execute_command_async
    from tournaments.live.consumers import _STATE_OUT  # the state was out of the cache: read from the database

    while True:
        acting = next(((seat, command) for seat in seats if (command := seat.command()) is not None), None)
        if acting is None:
            raise RuntimeError(f"game {game.pk}: nobody is to act, and the game is not over")
        seat, command = acting
        result = await game_execute_command_async(
            game_id=game.pk,
            player=seat.player,
            command=command,
            expected_seq=None if command["type"] == "pass" else seat.latest["seq"],
        )
        for viewer in seats:
            started = time.thread_time()
            built = viewer.consumer._frames_in_memory(viewer.consumer.sent_seq, result.game.seq)
            figures["frames"] += time.thread_time() - started
            if built is None or built is _STATE_OUT:
                figures["from the database"] += 1
                built = await database_sync_to_async(viewer.consumer._frames_after)(viewer.consumer.sent_seq, None)
            frame, seq, _ = built
            viewer.consumer.sent_seq = viewer.consumer.seat_seq = seq
            if frame is not None:
                update = orjson.loads(frame)
                if update["state"] is not None:
                    viewer.latest = update
        figures["plays"] += command["type"] == "play"
        if result.game.is_over:  # the table's one hand is played
            return


async def play_all(games, people, profile: cProfile.Profile | None) -> dict:
    figures = {"plays": 0, "frames": 0.0, "from the database": 0}
    tables = [await connect_table(game, people) for game in games]
    before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    if profile is not None:
        profile.enable()
    await asyncio.gather(*(play_table(game, seats, figures) for game, seats in zip(games, tables, strict=True)))
    if profile is not None:
        profile.disable()
    after = resource.getrusage(resource.RUSAGE_SELF)
    figures["user"], figures["system"] = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    figures["wall"] = time.perf_counter() - wall
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50, help="games played at once (one hand each)")
    parser.add_argument("--runs", type=int, default=3, help="measure this many times (new games each time)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's heaviest functions of the last run")
    args = parser.parse_args()

    import django

    from bench.database import ensure_database

    ensure_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from hearts_league.runtime import settle_garbage_collector
    from tournaments.clubs.services import player_register
    from tournaments.dispatch import scheduler
    from tournaments.games import loop_db
    from tournaments.games.services import SeatSpec, game_create

    class NoScheduler:  # no worker here: the follow-ups of a finished game are dropped
        def __getattr__(self, name):
            return lambda *args, **kwargs: None

    scheduler.backend = NoScheduler()
    call_command("migrate", verbosity=0)
    path = "written from the event loop" if loop_db.available() else "on the database thread"
    print(f"{args.tables} tables x 1 hand, {connection.vendor}, moves {path}")
    tag = secrets.token_hex(4)
    people = [player_register(username=f"moves-{tag}-{seat}", password="moves-password-123") for seat in range(4)]
    seats = [SeatSpec("me")] + [SeatSpec("player", player_id=player.pk) for player in people[1:]]
    profile = None
    for run in range(1, args.runs + 1):
        games = [game_create(creator=people[0], hand_limit=1, seats=seats) for _ in range(args.tables)]
        settle_garbage_collector()
        profile = cProfile.Profile() if args.profile and run == args.runs else None
        figures = asyncio.run(play_all(games, people, profile))
        plays = figures["plays"] or 1
        cpu = (figures["user"] + figures["system"]) * 1000 / plays
        frames = figures["frames"] * 1000 / plays
        label = f"run {run}" + (" (profiled)" if profile is not None else "")
        print(
            f"{label}: {figures['plays']} plays in {figures['wall']:.1f} s; CPU per play {cpu:.3f} ms "
            f"(user {figures['user'] * 1000 / plays:.3f}, system {figures['system'] * 1000 / plays:.3f}): "
            f"the four frames {frames:.3f} ms, the moves and the rest {cpu - frames:.3f} ms; "
            f"frames read from the database: {figures['from the database']}"
        )
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
