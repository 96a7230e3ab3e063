"""Races on one game (PostgreSQL, where row locks let transactions overlap): a leave racing a
move ends with either applied first, the seat handed to the CPU and the table moving; never a
stale seat acted on, never a stalled table. ``HEARTS_RACE_RUNS`` sets how many stress runs
(``make test``: 3; CI: 20)."""

from __future__ import annotations

import os
import random
import threading
import time

import pytest
from django.db import close_old_connections, connection, transaction

from hearts_league.api import DomainError
from tests.factories import PlayerFactory
from tests.tournaments.helpers import next_command
from tests.tournaments.reliability.support import USING_POSTGRES
from tournaments.autoplay.moves import game_cpu_move
from tournaments.games import eventstore
from tournaments.games.services import (
    SeatSpec,
    game_create,
    game_execute_command,
    game_join,
    game_leave,
    lock_game,
)
from tournaments.games.turns import cpu_seats
from tournaments.models import Game, GameEvent

RACE_RUNS = int(os.environ.get("HEARTS_RACE_RUNS", "3"))

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not USING_POSTGRES,
        reason="needs PostgreSQL: SQLite runs one writer at a time, so these transactions cannot overlap",
    ),
]


def _table(passing="cycle"):
    people = [PlayerFactory() for _ in range(4)]
    game = game_create(
        creator=people[0],
        rules={"passing": passing},
        device_id="device-0",
        seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
    )
    return game, people


def _state(game_id):
    game = Game.objects.get(pk=game_id)
    return game, eventstore.read_engine_game(game, lambda state: (list(state.to_act), state.phase))


def _no_table_waits_for_nobody(game_id: int) -> None:
    """Whenever a seat the CPU plays is to act, a CPU move is due (the sweeper and the task both
    look at cpu_due_at): the table can never stall on an away seat."""
    game, (to_act, _phase) = _state(game_id)
    if game.status != Game.Status.ACTIVE:
        return
    by_cpu = cpu_seats(game)
    if any(seat in by_cpu for seat in to_act):
        assert game.cpu_due_at is not None, f"seats {to_act} are the CPU's to play but no CPU move is due"


def _in_threads(*functions):
    errors = []

    def run(function):
        try:
            function()
        except Exception as error:
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(f,)) for f in functions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not [t for t in threads if t.is_alive()], "a transaction never finished (a deadlock?)"
    return errors


@pytest.mark.parametrize("phase", ["passing", "playing"])
def test_a_move_waiting_on_a_leave_acts_on_the_seats_as_the_leave_left_them(phase):
    """The move's statement starts while the leave holds the game's lock and commits after: the
    move must see that seat x is away (PostgreSQL re-reads only the rows it locked)."""
    game, people = _table(passing="cycle" if phase == "passing" else "off")
    game, (to_act, _) = _state(game.pk)
    mover = to_act[0]
    leaver = (mover + 1) % 4
    ready = threading.Barrier(2)

    def leave():
        with transaction.atomic():
            lock_game(game.pk)  # the leave holds the lock before the move's statement begins
            ready.wait()
            time.sleep(0.3)
            game_leave(game_id=game.pk, player=people[leaver])

    def move():
        ready.wait()
        time.sleep(0.05)
        g, _ = _state(game.pk)
        view = eventstore.read_engine_game(g, lambda state: state.view(mover))
        game_execute_command(game_id=game.pk, player=people[mover], command=next_command(view))

    def leavers_pass():
        ready.wait()
        time.sleep(0.05)
        g, _ = _state(game.pk)
        view = eventstore.read_engine_game(g, lambda state: state.view(leaver))
        game_execute_command(game_id=game.pk, player=people[leaver], command=next_command(view))

    errors = _in_threads(leave, move if phase == "playing" else leavers_pass)
    if phase == "passing":
        # the leaver's own pass, sent while the leave was committing, is refused: their seat is the CPU's
        assert [e.error_code for e in errors] == ["seat_away"], errors
        passed = GameEvent.objects.filter(game=game, type="CardsPassed", cause="player", payload__seat=leaver).exists()
        assert not passed
    else:
        assert not errors, errors
    _no_table_waits_for_nobody(game.pk)


@pytest.mark.parametrize("run", range(RACE_RUNS))
def test_players_racing_leave_join_pass_and_play_never_stall_the_table_and_it_audits_clean(run):
    game, people = _table()
    stop = time.monotonic() + 4

    def player(seat):
        def act():
            local = random.Random(run * 10 + seat)
            device = f"device-{seat}"
            while time.monotonic() < stop:
                g, (to_act, _phase) = _state(game.pk)
                if g.status != Game.Status.ACTIVE:
                    return
                try:
                    if local.random() < 0.08:
                        game_leave(game_id=game.pk, player=people[seat])
                    elif local.random() < 0.15:
                        game_join(game_id=game.pk, player=people[seat], device_id=device)
                    elif seat in to_act:
                        view = eventstore.read_engine_game(g, lambda state: state.view(seat))
                        game_execute_command(
                            game_id=game.pk, player=people[seat], command=next_command(view), expected_seq=g.seq
                        )
                    else:
                        seq = Game.objects.get(pk=game.pk).seq
                        game_cpu_move(game_id=game.pk, seq=seq)  # the CPU task, racing too
                except DomainError:
                    pass  # refused (stale, away, not your turn, ...): the next loop tries again

        return act

    assert not _in_threads(*[player(seat) for seat in range(4)])
    _no_table_waits_for_nobody(game.pk)
    # the table goes on to its end with CPUs for the away seats and a human rule for the others
    for _ in range(5000):
        g, (to_act, _phase) = _state(game.pk)
        if g.status != Game.Status.ACTIVE:
            break
        _no_table_waits_for_nobody(game.pk)
        if not game_cpu_move(game_id=game.pk, seq=g.seq):
            seat = to_act[0]
            view = eventstore.read_engine_game(g, lambda state, seat=seat: state.view(seat))
            game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    report = eventstore.audit_game(game)
    assert report.ok, report
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
