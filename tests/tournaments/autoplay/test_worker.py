"""Timing behaviour with a real Celery worker process against Redis and PostgreSQL (CI)."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from tests.conftest import REDIS_URL
from tests.factories import PlayerFactory
from tests.processes import USING_POSTGRES, start_worker, stop, wait_for
from tests.tournaments.helpers import next_command
from tournaments.games import eventstore
from tournaments.games.services import SeatSpec, game_create, game_execute_command, game_execute_command_async
from tournaments.live import presence
from tournaments.models import Game, GameEvent, GameSeat

pytestmark = [
    pytest.mark.skipif(
        not (REDIS_URL and USING_POSTGRES),
        reason="needs Redis and PostgreSQL shared with a worker process: set REDIS_URL and "
        "DATABASE_URL=postgres://... (CI does)",
    ),
    pytest.mark.django_db(transaction=True),
    pytest.mark.worker,
]

WORKER_ENV = {"HEARTS_CPU_DELAY": "0.02", "HEARTS_TURN_TIME_SCALE": "0.05", "HEARTS_AWAY_GRACE": "1"}


@pytest.fixture
def worker(settings, tmp_path):
    for key, value in WORKER_ENV.items():
        setattr(settings, key, float(value))
    from hearts_league.celery import app

    app.control.purge()
    process = start_worker(tmp_path / "worker.log", **WORKER_ENV)
    time.sleep(2.5)  # let it connect before the first task is due
    yield process
    stop(process)


def _humans(n):
    people = [PlayerFactory() for _ in range(n)]
    return people, [SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]]


def test_a_table_of_four_cpus_plays_itself_to_the_end(worker):
    game = game_create(creator=PlayerFactory(), rules={"end_score": 26}, seats=[SeatSpec("cpu", bot="rule")] * 4)
    wait_for(lambda: Game.objects.get(pk=game.pk).status == Game.Status.FINISHED, timeout=120)
    from tournaments.games.eventstore import audit_game

    assert audit_game(Game.objects.get(pk=game.pk)).ok


def test_a_silent_table_gets_its_passes_made_by_the_cpu_when_the_turn_time_runs_out(worker):
    people, seats = _humans(4)
    game = game_create(creator=people[0], turn_seconds=30, seats=seats)  # 30 s x 0.05 = 1.5 s
    started = time.monotonic()
    wait_for(lambda: GameEvent.objects.filter(game=game, type="CardsPassed").count() == 4, timeout=30)
    elapsed = time.monotonic() - started
    assert elapsed >= 1.4, "the timer must not fire before the turn time"
    passes = GameEvent.objects.filter(game=game, type="CardsPassed")
    assert set(passes.values_list("cause", flat=True)) == {GameEvent.Cause.TIMER}


def test_a_stale_timer_after_human_moves_appends_nothing(worker):
    people, seats = _humans(4)
    game = game_create(creator=people[0], turn_seconds=60, seats=seats)  # 60 s x 0.05 = 3 s to pass
    created = time.monotonic()
    from tournaments.games import eventstore

    time.sleep(2.0)
    for seat, player in enumerate(people):
        view = eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda s, seat=seat: s.view(seat))
        game_execute_command(game_id=game.pk, player=player, command={"type": "pass", "cards": view["hand"][:3]})
    passed_at = Game.objects.get(pk=game.pk).seq
    # The passing timer fires at 3 s and finds its turn over; the first play's timer is due at 5 s.
    time.sleep(max(0.0, created + 4.0 - time.monotonic()))
    assert Game.objects.get(pk=game.pk).seq == passed_at, "the stale passing timer appended something"
    assert not GameEvent.objects.filter(game=game, cause=GameEvent.Cause.TIMER).exists()
    wait_for(lambda: GameEvent.objects.filter(game=game, type="CardPlayed").exists(), timeout=20)
    assert time.monotonic() - created >= 4.8, "the first play's timer ran its full turn time"
    assert GameEvent.objects.get(game=game, type="CardPlayed").cause == GameEvent.Cause.TIMER


def test_a_live_player_who_lets_the_clock_run_out_gets_the_cpu_s_move_at_the_deadline(worker):
    """Live plays keep their turn's deadline on the server's loop (no Celery task a card): the
    timer goes to the worker as the deadline nears, and the worker moves for the seat at it (no
    sweeper runs here: without that send the table would wait for ever)."""
    people, seats = _humans(4)
    game = game_create(creator=people[0], turn_seconds=60, seats=seats)  # 60 s x 0.05 = 3 s turns

    def awaited() -> tuple[int, dict] | None:
        row = Game.objects.get(pk=game.pk)
        to_act = eventstore.read_engine_game(row, lambda state: state.to_act)
        if not to_act:
            return None
        return to_act[0], eventstore.read_engine_game(row, lambda state, seat=to_act[0]: state.view(seat))

    def timed_out() -> bool:
        return GameEvent.objects.filter(game=game, cause=GameEvent.Cause.TIMER).exists()

    async def table() -> float:
        # the passes and three cards, as the seats' live connections send them
        while await database_sync_to_async(GameEvent.objects.filter(game=game, type="CardPlayed").count)() != 3:
            seat, view = await database_sync_to_async(awaited)()
            await game_execute_command_async(game_id=game.pk, player=people[seat], command=next_command(view))
        last_play = time.monotonic()
        while not await database_sync_to_async(timed_out)():  # the fourth seat lets its time run out
            if time.monotonic() - last_play > 15:
                raise AssertionError("no move was made for the seat whose time ran out")
            await asyncio.sleep(0.05)
        return time.monotonic() - last_play

    waited = asyncio.run(table())
    assert waited >= 2.9, "the timer fired before the turn time"
    assert waited < 5, "the move came late (a lost timer made good by a sweeper would be later still)"
    plays = GameEvent.objects.filter(game=game, type="CardPlayed").order_by("seq")
    assert [play.cause for play in plays[:4]] == [GameEvent.Cause.PLAYER] * 3 + [GameEvent.Cause.TIMER]


def test_a_disconnected_seat_goes_to_the_cpu_after_the_grace_period_and_comes_back(worker):
    human = PlayerFactory()
    game = game_create(
        creator=human, device_id="the-phone-0123456789", seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3
    )
    presence.seat_connected(game_id=game.pk, seat=0, connection_id="phone-1", device_id="the-phone-0123456789")
    presence.seat_disconnected(game_id=game.pk, seat=0, player_id=human.pk, connection_id="phone-1")
    started = time.monotonic()
    wait_for(lambda: GameSeat.objects.get(game=game, seat=0).away, timeout=20)
    assert time.monotonic() - started >= 0.9
    assert GameEvent.objects.filter(game=game, type="SeatVacated", actor_seat=0).exists()
    wait_for(
        lambda: GameEvent.objects.filter(
            game=game, type="CardsPassed", actor_seat=0, cause=GameEvent.Cause.CPU
        ).exists(),
        timeout=20,
    )
    assert (
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="phone-2", device_id="the-phone-0123456789")
        is True
    )
    assert not GameSeat.objects.get(game=game, seat=0).away
    reclaimed = GameEvent.objects.get(game=game, type="SeatReclaimed", actor_seat=0).seq
    # The CPUs play on up to the seat's next turn, and then wait for its player.
    from tournaments.games import eventstore

    wait_for(
        lambda: 0 in eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda s: s.view(0))["to_act"],
        timeout=20,
    )
    time.sleep(0.5)
    assert not GameEvent.objects.filter(game=game, seq__gt=reclaimed, actor_seat=0, cause=GameEvent.Cause.CPU).exists()
