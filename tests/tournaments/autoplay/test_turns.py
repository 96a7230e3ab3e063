"""CPU seats, turn timers, presence and the sweeper, driven in-process (no worker)."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import PlayerFactory
from tests.tournaments.helpers import next_command
from tournaments.autoplay import moves as turns
from tournaments.autoplay import sweeper
from tournaments.games import eventstore
from tournaments.games.services import SeatSpec, game_create, game_execute_command, game_leave
from tournaments.live import presence
from tournaments.models import Game, GameEvent, GameSeat

pytestmark = pytest.mark.django_db


def _view(game, seat):
    game.refresh_from_db()
    return eventstore.read_engine_game(game, lambda state: state.view(seat))


def _human_move(game, player, seat, capture):
    with capture(execute=True):
        game_execute_command(game_id=game.pk, player=player, command=next_command(_view(game, seat)))


def test_a_table_of_four_cpus_plays_itself_to_the_end(scheduler):
    creator = PlayerFactory()
    with scheduler.capture(execute=True):
        game = game_create(
            creator=creator,
            rules={"end_score": 30},
            seats=[SeatSpec("cpu", bot="rule")] * 2 + [SeatSpec("cpu", bot="random")] * 2,
        )
    assert scheduler.pending, "the start schedules the first CPU move"
    scheduler.run_all()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert scheduler.finished == [game.pk]
    assert eventstore.audit_game(game).ok
    causes = set(game.events.filter(seq__gt=4).values_list("cause", flat=True))
    assert causes == {GameEvent.Cause.CPU}


def test_cpu_seats_pass_and_play_around_a_human(scheduler):
    human = PlayerFactory()
    with scheduler.capture(execute=True):
        game = game_create(creator=human, seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3)
    scheduler.run_all()
    view = _view(game, 0)
    assert view["phase"] == "passing" and view["passed_seats"] == [1, 2, 3]
    _human_move(game, human, 0, scheduler.capture)
    scheduler.run_all()
    view = _view(game, 0)
    assert view["phase"] == "playing"
    assert view["to_act"] == [0] or len(view["trick"]) == 0 or view["trick"][-1]["seat"] == 3


def test_a_timed_table_sets_one_deadline_for_all_passers_and_keeps_it(scheduler, settings):
    settings.HEARTS_TURN_TIME_SCALE = 1.0
    people = [PlayerFactory() for _ in range(4)]
    with scheduler.capture(execute=True):
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
    game.refresh_from_db()
    deadline = game.turn_deadline
    assert deadline is not None and 29 <= (deadline - timezone.now()).total_seconds() <= 30
    assert scheduler.timers == [(game.pk, deadline)]
    _human_move(game, people[0], 0, scheduler.capture)
    game.refresh_from_db()
    assert game.turn_deadline == deadline, "the others keep the same time to pass"
    assert len(scheduler.timers) == 1


def test_an_expired_turn_is_played_by_the_cpu_for_every_silent_passer(scheduler, settings):
    settings.HEARTS_TURN_TIME_SCALE = 0.001  # 30 s -> 30 ms
    people = [PlayerFactory() for _ in range(4)]
    with scheduler.capture(execute=True):
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
    _human_move(game, people[0], 0, scheduler.capture)
    game.refresh_from_db()
    time.sleep(0.05)
    with scheduler.capture(execute=True):
        moves = turns.game_turn_expired(game_id=game.pk, deadline=game.turn_deadline)
    assert moves == 3
    timed = game.events.filter(cause=GameEvent.Cause.TIMER, type="CardsPassed")
    assert sorted(timed.values_list("actor_seat", flat=True)) == [1, 2, 3]
    assert _view(game, 0)["phase"] == "playing"


def test_a_stale_timer_appends_nothing(scheduler, settings):
    settings.HEARTS_TURN_TIME_SCALE = 0.001
    people = [PlayerFactory() for _ in range(4)]
    with scheduler.capture(execute=True):
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            rules={"passing": "off"},
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
    game.refresh_from_db()
    old_deadline = game.turn_deadline
    leader = _view(game, None)["to_act"][0]
    _human_move(game, people[leader], leader, scheduler.capture)
    game.refresh_from_db()
    seq = game.seq
    time.sleep(0.05)
    assert turns.game_turn_expired(game_id=game.pk, deadline=old_deadline) == 0
    assert Game.objects.get(pk=game.pk).seq == seq


def test_a_redelivered_cpu_task_makes_no_second_move(scheduler):
    human = PlayerFactory()
    with scheduler.capture(execute=True):
        game_create(creator=human, seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3)
    game_id, seq = scheduler.pending[0]
    with scheduler.capture(execute=True):
        assert turns.game_cpu_move(game_id=game_id, seq=seq) is True
        assert turns.game_cpu_move(game_id=game_id, seq=seq) is False
    assert Game.objects.get(pk=game_id).seq == seq + 1


def _timed_table_overdue_by(scheduler, seconds):
    """A table of four humans with a 30 s turn time whose deadline passed ``seconds`` ago; (game, seq)."""
    people = [PlayerFactory() for _ in range(4)]
    with scheduler.capture(execute=True):
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            rules={"passing": "off"},
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=seconds))
    return game, Game.objects.get(pk=game.pk).seq


def test_the_sweeper_makes_moves_whose_timers_were_lost(scheduler, settings):
    settings.HEARTS_TURN_TIME_SCALE = 0.001
    game, seq = _timed_table_overdue_by(scheduler, 60)
    with scheduler.capture(execute=True):
        assert sweeper.sweep_stalled_games() == 1
    assert Game.objects.get(pk=game.pk).seq > seq
    assert game.events.filter(cause=GameEvent.Cause.TIMER).count() >= 1


def test_the_sweeper_leaves_a_turn_just_past_its_deadline_to_its_own_timer(scheduler, settings):
    settings.HEARTS_SWEEP_GRACE = 5.0
    game, seq = _timed_table_overdue_by(scheduler, 2)
    with scheduler.capture(execute=True):
        assert sweeper.sweep_stalled_games() == 0
    assert Game.objects.get(pk=game.pk).seq == seq


def test_cpu_moves_wait_the_configured_delay_so_people_can_follow(scheduler, settings, monkeypatch):
    settings.HEARTS_CPU_DELAY = 0.25
    with scheduler.capture(execute=True):
        game = game_create(creator=PlayerFactory(), seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3)
    assert scheduler.pending and set(scheduler.delays) == {0.25}
    from celery import current_app

    from tournaments.dispatch import scheduler as dispatch_scheduler

    class RecordingApp:
        def __init__(self):
            self.sent = []

        def send_task(self, name, **options):
            self.sent.append((name, options))

    app = RecordingApp()
    dispatch_scheduler.CeleryScheduler(app).cpu_move(game.pk, 7, settings.HEARTS_CPU_DELAY)
    [(name, options)] = app.sent
    assert (options["args"], options["countdown"]) == ([game.pk, 7], 0.25)
    # sent by name to the task the worker runs: a worker imports the task modules on start
    # (autodiscovery), which this process need never do, so do it as the worker does
    current_app.loader.import_default_modules()
    assert name in current_app.tasks


def test_a_disconnected_player_gets_a_cpu_after_the_grace_period_and_the_seat_back_later(scheduler):
    human = PlayerFactory()
    with scheduler.capture(execute=True):
        game = game_create(
            creator=human,
            device_id="phone-of-the-human-123",
            seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3,
        )
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="c1", device_id="phone-of-the-human-123")
        since = presence.seat_disconnected(game_id=game.pk, seat=0, player_id=human.pk, connection_id="c1")
    assert scheduler.away_checks == [(game.pk, 0, since)]
    with scheduler.capture(execute=True):
        assert presence.seat_vacate_if_still_gone(game_id=game.pk, seat=0, since=since) is True
    assert GameSeat.objects.get(game=game, seat=0).away
    scheduler.run_all(limit=4)  # the four passes
    view = _view(game, 0)
    assert view["phase"] == "playing", "the CPU passed for the away player"
    with scheduler.capture(execute=True):
        assert (
            presence.seat_connected(game_id=game.pk, seat=0, connection_id="c2", device_id="another-device-456789")
            is False
        )
        assert (
            presence.seat_connected(game_id=game.pk, seat=0, connection_id="c3", device_id="phone-of-the-human-123")
            is True
        )
    assert not GameSeat.objects.get(game=game, seat=0).away
    types = list(game.events.values_list("type", flat=True))
    assert types.index("SeatVacated") < types.index("SeatReclaimed")


def test_a_player_who_comes_back_within_the_grace_period_keeps_the_seat(scheduler):
    human = PlayerFactory()
    with scheduler.capture(execute=True):
        game = game_create(creator=human, seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3)
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="c1")
        since = presence.seat_disconnected(game_id=game.pk, seat=0, player_id=human.pk, connection_id="c1")
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="c2")
        assert presence.seat_vacate_if_still_gone(game_id=game.pk, seat=0, since=since) is False
    assert not GameSeat.objects.get(game=game, seat=0).away
    assert not game.events.filter(type="SeatVacated").exists()


def test_leaving_mid_game_hands_the_seat_to_the_cpu(scheduler):
    human = PlayerFactory()
    with scheduler.capture(execute=True):
        game = game_create(creator=human, seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3)
    scheduler.run_all()
    with scheduler.capture(execute=True):
        game_leave(game_id=game.pk, player=human)
    scheduler.run_all(limit=1)
    assert game.events.filter(type="SeatVacated", payload__reason="left").exists()
    assert 0 in _view(game, 0)["passed_seats"]


hook_calls: list[int] = []


def recording_hook(*, game_id):
    hook_calls.append(game_id)


def test_the_sweeper_runs_the_finished_game_hooks_whose_task_was_lost(scheduler, settings):
    settings.HEARTS_GAME_FINISHED_HOOKS = ["tests.tournaments.autoplay.test_turns.recording_hook"]
    hook_calls.clear()
    with scheduler.capture(execute=True):
        game = game_create(creator=PlayerFactory(), rules={"end_score": 26}, seats=[SeatSpec("cpu", bot="random")] * 4)
    scheduler.run_all()
    assert scheduler.finished == [game.pk]  # the task was scheduled... and lost: nothing ran it
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(seconds=60))
    sweeper.sweep_stalled_games()
    assert hook_calls == [game.pk]
    assert Game.objects.get(pk=game.pk).followups_done_at is not None
    sweeper.sweep_stalled_games()
    assert hook_calls == [game.pk], "hooks that completed are not run again"
