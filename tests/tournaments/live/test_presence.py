"""Open connections and the sweeper: a seat whose player left is never held by a socket nobody
will close (a server process that died), nor left unhanded when its away check was lost."""

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from tests.factories import PlayerFactory
from tests.processes import USING_POSTGRES
from tests.tournaments.helpers import play_through_services, seated_table
from tournaments.autoplay import sweeper
from tournaments.games.services import SeatSpec, game_create
from tournaments.live import presence
from tournaments.models import GameSeat, SeatConnection, ServerHeartbeat

pytestmark = pytest.mark.django_db


def _table_of_two_humans(scheduler):
    people = [PlayerFactory(), PlayerFactory()]
    with scheduler.capture(execute=True):
        game = game_create(
            creator=people[0],
            device_id="phone-0-123456789",
            seats=[SeatSpec("me"), SeatSpec("player", player_id=people[1].pk)] + [SeatSpec("cpu", bot="rule")] * 2,
        )
    return game


def _connect_on(server, game, seat, connection_id, *, opened_ago, monkeypatch):
    monkeypatch.setattr(presence, "server_id", lambda: server)
    presence.seat_connected(game_id=game.pk, seat=seat, connection_id=connection_id)
    SeatConnection.objects.filter(connection_id=connection_id).update(opened_at=timezone.now() - opened_ago)


def test_a_dead_servers_connections_are_dropped_and_the_seat_goes_to_the_cpu(scheduler, monkeypatch):
    game = _table_of_two_humans(scheduler)
    minute = timedelta(seconds=60)
    _connect_on("crashed", game, 0, "c-crashed", opened_ago=minute, monkeypatch=monkeypatch)
    _connect_on("alive", game, 1, "c-alive", opened_ago=minute, monkeypatch=monkeypatch)
    ServerHeartbeat.objects.create(server="crashed", seen_at=timezone.now() - minute)
    ServerHeartbeat.objects.create(server="alive", seen_at=timezone.now())

    with scheduler.capture(execute=True):
        sweeper.sweep_stalled_games()

    assert list(SeatConnection.objects.values_list("connection_id", flat=True)) == ["c-alive"]
    assert [(game_id, seat) for game_id, seat, _ in scheduler.away_checks] == [(game.pk, 0)]
    assert not ServerHeartbeat.objects.filter(server="crashed").exists(), "a dead server holding nothing is forgotten"
    _, _, since = scheduler.away_checks[0]
    with scheduler.capture(execute=True):
        assert presence.seat_vacate_if_still_gone(game_id=game.pk, seat=0, since=since) is True
    assert GameSeat.objects.get(game=game, seat=0).away
    assert not GameSeat.objects.get(game=game, seat=1).away
    assert game.events.filter(type="SeatVacated", actor_seat=0).exists()


def test_a_seat_with_another_connection_on_a_live_server_keeps_its_player(scheduler, monkeypatch):
    game = _table_of_two_humans(scheduler)
    minute = timedelta(seconds=60)
    _connect_on("crashed", game, 0, "c-old-tab", opened_ago=minute, monkeypatch=monkeypatch)
    _connect_on("alive", game, 0, "c-new-tab", opened_ago=minute, monkeypatch=monkeypatch)
    ServerHeartbeat.objects.create(server="alive", seen_at=timezone.now())

    with scheduler.capture(execute=True):
        sweeper.sweep_stalled_games()

    assert list(SeatConnection.objects.values_list("connection_id", flat=True)) == ["c-new-tab"]
    assert scheduler.away_checks == []


def test_a_connection_younger_than_its_servers_first_heartbeat_is_kept(scheduler, monkeypatch):
    game = _table_of_two_humans(scheduler)
    _connect_on("just-started", game, 0, "c-new", opened_ago=timedelta(seconds=1), monkeypatch=monkeypatch)

    with scheduler.capture(execute=True):
        assert presence.sweep_presence() == 0

    assert SeatConnection.objects.filter(connection_id="c-new").exists()
    assert scheduler.away_checks == []


def test_the_last_of_two_connections_closing_starts_the_grace_period(scheduler):
    game = _table_of_two_humans(scheduler)
    owner = GameSeat.objects.get(game=game, seat=0).player_id
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="phone")
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="laptop")
        assert presence.seat_disconnected(game_id=game.pk, seat=0, player_id=owner, connection_id="phone") is None
        since = presence.seat_disconnected(game_id=game.pk, seat=0, player_id=owner, connection_id="laptop")
    assert since is not None
    assert scheduler.away_checks == [(game.pk, 0, since)]


def test_a_heartbeat_writes_back_the_rows_of_its_open_sockets_and_drops_the_rest(scheduler):
    game = _table_of_two_humans(scheduler)
    seats = {row.seat: row.player_id for row in GameSeat.objects.filter(game=game)}
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="still-open")
        presence.seat_connected(game_id=game.pk, seat=1, connection_id="closed-unrecorded")
        SeatConnection.objects.filter(connection_id="still-open").delete()  # taken for dead during a stall
        SeatConnection.objects.filter(connection_id="closed-unrecorded").update(
            opened_at=timezone.now() - timedelta(seconds=60)
        )
        presence.server_alive({"still-open": (game.pk, 0, seats[0])})
    assert set(SeatConnection.objects.values_list("connection_id", flat=True)) == {"still-open"}
    assert ServerHeartbeat.objects.filter(server=presence.server_id()).exists()
    assert [(game_id, seat) for game_id, seat, _ in scheduler.away_checks] == [(game.pk, 1)]


def test_a_heartbeat_does_not_write_back_a_socket_to_a_finished_game_closed_since_its_snapshot(scheduler):
    """Found by review: a socket closing on a finished game drops its row at once from the loop,
    and a heartbeat whose snapshot still held it would write it back until the next beat."""
    game, people, _ = seated_table(hand_limit=1)
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="closed-since")
        play_through_services(game, people)
        SeatConnection.objects.filter(connection_id="closed-since").delete()  # the loop's drop
        presence.server_alive({"closed-since": (game.pk, 0, people[0].pk)})
    assert not SeatConnection.objects.filter(connection_id="closed-since").exists()


def test_a_heartbeat_spares_a_socket_opened_after_its_snapshot(scheduler):
    game = _table_of_two_humans(scheduler)
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="just-opened")
        presence.server_alive({})
    assert SeatConnection.objects.filter(connection_id="just-opened").exists()
    assert scheduler.away_checks == []


def test_the_sweeper_hands_on_a_seat_whose_away_check_was_lost(scheduler, settings):
    settings.HEARTS_AWAY_GRACE, settings.HEARTS_SWEEP_GRACE = 30.0, 5.0
    game = _table_of_two_humans(scheduler)
    owner = GameSeat.objects.get(game=game, seat=0).player_id
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="c1")
        presence.seat_disconnected(game_id=game.pk, seat=0, player_id=owner, connection_id="c1")
        assert presence.sweep_presence() == 0, "within its grace the seat stays its player's"
    GameSeat.objects.filter(game=game, seat=0).update(disconnected_since=timezone.now() - timedelta(seconds=36))
    with scheduler.capture(execute=True):
        assert presence.sweep_presence() == 1
    assert GameSeat.objects.get(game=game, seat=0).away
    assert game.events.filter(type="SeatVacated", actor_seat=0).exists()


def test_a_former_occupants_socket_closing_does_not_start_the_new_occupants_grace(scheduler):
    game = _table_of_two_humans(scheduler)
    former = GameSeat.objects.get(game=game, seat=0).player_id
    with scheduler.capture(execute=True):
        presence.seat_connected(game_id=game.pk, seat=0, connection_id="former")
    GameSeat.objects.filter(game=game, seat=0).update(player=PlayerFactory())
    with scheduler.capture(execute=True):
        assert presence.seat_disconnected(game_id=game.pk, seat=0, player_id=former, connection_id="former") is None
    assert scheduler.away_checks == []
    assert not SeatConnection.objects.exists()


@pytest.mark.skipif(not USING_POSTGRES, reason="row locks need PostgreSQL (SQLite locks the whole database)")
@pytest.mark.django_db(transaction=True)
def test_reconnect_storms_and_sweeps_on_one_seat_never_deadlock_or_leak_a_row(scheduler):
    game = _table_of_two_humans(scheduler)
    owner = GameSeat.objects.get(game=game, seat=0).player_id
    failures = []

    def reconnecting(tab):
        try:
            for attempt in range(25):
                connection_id = f"{tab}-{attempt}"
                presence.seat_connected(game_id=game.pk, seat=0, connection_id=connection_id)
                presence.seat_disconnected(game_id=game.pk, seat=0, player_id=owner, connection_id=connection_id)
        except Exception as error:  # a deadlock surfaces here as OperationalError
            failures.append(error)
        finally:
            connections.close_all()

    def sweeping():
        try:
            for attempt in range(25):
                SeatConnection.objects.create(
                    seat=GameSeat.objects.get(game=game, seat=0),
                    player_id=owner,
                    connection_id=f"dead-{attempt}",
                    server="a-dead-server",
                    opened_at=timezone.now() - timedelta(seconds=120),
                )
                presence.sweep_presence()
        except Exception as error:
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=reconnecting, args=(tab,)) for tab in ("phone", "laptop", "tablet")]
    threads.append(threading.Thread(target=sweeping))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    assert not SeatConnection.objects.exists(), "every closed or dead connection is gone"
    assert not GameSeat.objects.get(game=game, seat=0).away
