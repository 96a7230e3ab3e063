"""Turn clocks kept on a server's event loop: at a clocked table a live play sends no Celery task;
the loop holds one timer per game, moved by every play and stopped when no clock runs, and a
deadline that comes near sends its turn timer, carrying the deadline it fires at. A server that
stops hands the deadlines it holds to Celery; one that crashes leaves them to the sweeper."""

import asyncio
import gc
import weakref
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import connection  # noqa: F401 (the skipif condition reads it)
from django.utils import timezone

from tests.tournaments.helpers import next_command, seated_table
from tournaments.dispatch import scheduler
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command, game_execute_command_async
from tournaments.models import Game, GameEvent


@pytest.fixture
def sent(monkeypatch):
    """The turn timers sent to Celery, as (game id, deadline)."""
    timers: list[tuple] = []

    class Recorder:
        def turn_timer(self, game_id, deadline):
            timers.append((game_id, deadline))

    monkeypatch.setattr(scheduler, "backend", Recorder())
    return timers


def test_a_loop_keeps_one_timer_a_game_moves_it_with_each_deadline_and_sends_only_the_last(monkeypatch, sent):
    monkeypatch.setattr(scheduler, "TURN_TIMER_LEAD", 0.05)
    now = timezone.now()
    first, second = now + timedelta(seconds=0.2), now + timedelta(seconds=0.3)

    async def plays():
        clocks = scheduler.turn_clocks()
        clocks.keep(1, first)
        clocks.keep(1, first)  # the same deadline again (a pass that leaves the turn as it was)
        clocks.keep(1, second)  # the next card's turn
        clocks.keep(2, first)
        clocks.keep(2, None)  # the clock stopped (a CPU to act, the game over)
        assert (clocks.deadline(1), clocks.deadline(2)) == (second, None)
        await asyncio.sleep(0.5)
        assert clocks.deadline(1) is None  # sent: no longer held

    asyncio.run(plays())
    assert sent == [(1, second)]


def test_a_deadline_already_near_is_sent_at_once_and_one_in_the_past_too(monkeypatch, sent):
    async def plays() -> tuple:
        clocks = scheduler.turn_clocks()
        near, past = timezone.now() + timedelta(seconds=0.5), timezone.now() - timedelta(seconds=1)
        clocks.keep(1, near)  # within the lead (1 s): the worker waits for the deadline itself
        clocks.keep(2, past)
        await asyncio.sleep(0.2)
        return near, past

    near, past = asyncio.run(plays())
    assert sorted(sent) == [(1, near), (2, past)]


def test_a_failed_send_is_logged_and_left_to_the_sweeper(monkeypatch, caplog):
    class Broken:
        def turn_timer(self, game_id, deadline):
            raise ConnectionError("the broker is down")

    monkeypatch.setattr(scheduler, "backend", Broken())

    async def plays():
        scheduler.turn_clocks().keep(7, timezone.now())
        await asyncio.sleep(0.2)

    asyncio.run(plays())
    assert "could not send the turn timer of game 7" in caplog.text


def test_the_clocks_of_a_loop_still_open_at_exit_go_to_celery_and_those_of_loops_that_ended_do_not(sent):
    later = timezone.now() + timedelta(seconds=30)

    async def keep(game_id):
        scheduler.turn_clocks().keep(game_id, later)

    stopped = asyncio.new_event_loop()  # a server's loop at exit: stopped, not closed (Daphne's is)
    try:
        stopped.run_until_complete(keep(1))
        asyncio.run(keep(2))  # a loop that ended
        assert scheduler.hand_over_turn_clocks() == 1
        assert sent == [(1, later)]
        assert scheduler.hand_over_turn_clocks() == 0  # handed over once
    finally:
        stopped.close()


def test_a_loop_that_ended_is_not_kept_alive_by_the_clocks_it_held():
    async def keep():
        scheduler.turn_clocks().keep(3, timezone.now() + timedelta(seconds=30))
        return weakref.ref(asyncio.get_running_loop())

    ended = asyncio.run(keep())
    gc.collect()
    assert ended() is None


# --- live plays at a clocked table (PostgreSQL: a live move is written from the loop) ---------------

live_db = pytest.mark.django_db(transaction=True)
postgresql = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="live moves are written from the loop on PostgreSQL"
)


def _view(game_id: int, seat: int) -> dict:
    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: state.view(seat))


def _to_act(game_id: int) -> int:
    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: state.to_act[0])


async def _play_live(game: Game, people, until) -> None:
    """Live commands (as a connection's) from the running loop, the awaited seat's first legal one,
    until ``until()`` says so."""
    while not await database_sync_to_async(until)():
        seat = await database_sync_to_async(_to_act)(game.pk)
        view = await database_sync_to_async(_view)(game.pk, seat)
        await game_execute_command_async(game_id=game.pk, player=people[seat], command=next_command(view))


def _played(game: Game, count: int):
    return lambda: GameEvent.objects.filter(game=game, type="CardPlayed").count() >= count


@live_db
@postgresql
def test_live_plays_at_a_clocked_table_send_no_timer_and_the_loop_holds_the_rows_deadline(
    sent, django_capture_on_commit_callbacks
):
    game, people, _ = seated_table(turn_seconds=30)
    for seat in range(4):  # the passes, on the database thread (REST's path): a Celery timer for their turn
        with django_capture_on_commit_callbacks(execute=True):
            game_execute_command(game_id=game.pk, player=people[seat], command=next_command(_view(game.pk, seat)))
    timers_before = list(sent)
    assert timers_before and timers_before[-1][1] == Game.objects.get(pk=game.pk).turn_deadline
    held = []

    async def plays():
        for count in range(1, 7):  # more than a trick: each card starts a turn with a new deadline
            await _play_live(game, people, _played(game, count))
            row = await database_sync_to_async(Game.objects.get)(pk=game.pk)
            held.append((scheduler.turn_clocks().deadline(game.pk), row.turn_deadline))

    asyncio.run(plays())
    assert sent == timers_before, "a live play sent a turn timer"
    assert all(loop_deadline == row_deadline is not None for loop_deadline, row_deadline in held)
    assert len({deadline for deadline, _ in held}) == 6


@live_db
@postgresql
def test_the_clock_of_the_last_live_play_sends_its_timer_when_due_and_the_end_of_the_game_stops_it(
    monkeypatch, settings, sent
):
    settings.HEARTS_TURN_TIME_SCALE = 0.02  # 30 s turns of 0.6 s
    monkeypatch.setattr(scheduler, "TURN_TIMER_LEAD", 0.1)
    game, people, _ = seated_table(turn_seconds=30, hand_limit=1)
    seen = {}

    async def scenario():
        await _play_live(game, people, _played(game, 3))
        seen["awaited"] = (await database_sync_to_async(Game.objects.get)(pk=game.pk)).turn_deadline
        await asyncio.sleep(0.8)  # the fourth seat lets its time run out
        seen["when due"] = list(sent)
        await _play_live(game, people, lambda: Game.objects.get(pk=game.pk).is_over)  # the hand played out
        assert scheduler.turn_clocks().deadline(game.pk) is None
        seen["at the end"] = len(sent)
        await asyncio.sleep(0.8)  # a clock still held would fire now

    asyncio.run(scenario())
    assert seen["when due"][-1] == (game.pk, seen["awaited"])  # the turn that ran out, with its deadline
    assert len(sent) == seen["at the end"], "a timer was sent after the game ended"


@live_db
@postgresql
def test_a_clock_lost_with_its_server_is_made_good_by_the_sweeper(monkeypatch, settings, sent):
    settings.HEARTS_TURN_TIME_SCALE = 0.02  # 30 s turns of 0.6 s
    monkeypatch.setattr(scheduler, "TURN_TIMER_LEAD", 0.1)
    game, people, _ = seated_table(turn_seconds=30)

    async def plays():  # then the loop ends, as a server process that crashed or restarted
        await _play_live(game, people, _played(game, 2))

    asyncio.run(plays())
    deadline = Game.objects.get(pk=game.pk).turn_deadline
    assert deadline not in [sent_deadline for _, sent_deadline in sent]
    asyncio.run(asyncio.sleep(0.8))  # the turn runs out with nobody holding its clock
    from tournaments.autoplay.sweeper import sweep_stalled_games

    assert sweep_stalled_games(grace_seconds=0.1) == 1
    plays = GameEvent.objects.filter(game=game, type="CardPlayed").order_by("seq")
    assert [play.cause for play in plays] == [GameEvent.Cause.PLAYER] * 2 + [GameEvent.Cause.TIMER]
