"""Faults, each against PostgreSQL + Redis and real processes (a Celery worker, Daphne, a private
redis-server): a worker killed holding a turn timer, Redis restarting mid-game, the database
connection dropping mid-command, two Daphne processes serving one game, a Daphne stopped while
a live turn's clock runs.

Skipped without PostgreSQL and Redis (``.ci/run`` provides both). Never touches the shared
Redis or PostgreSQL servers: Redis restarts use a private redis-server, connection drops use
``pg_terminate_backend`` on the test's own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import psycopg
import pytest
from celery import Celery
from django.conf import settings as django_settings
from django.db import OperationalError, connection
from django.db.utils import InterfaceError

from hearts_league.settings import redis_channel_layers
from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for, next_command
from tests.tournaments.reliability.support import (
    ROOT,
    database_url,
    free_port,
    needs_real_backends,
    process_env,
    redis_server_binary,
    start_redis,
    start_worker,
    stop,
    wait_for,
)
from tests.tournaments.reliability.wsclient import WebSocket
from tournaments.dispatch import scheduler as dispatch_scheduler
from tournaments.games import eventstore
from tournaments.games import services as game_services
from tournaments.games.services import SeatSpec, game_create, game_execute_command
from tournaments.games.tickets import ws_ticket_issue
from tournaments.models import Game, GameEvent

pytestmark = [needs_real_backends, pytest.mark.django_db(transaction=True), pytest.mark.worker]


def assert_log_is_whole(game_id: int) -> list[GameEvent]:
    """seq 1..N without gaps, no command appended twice, and the audit (chain + replay) passes."""
    game = Game.objects.get(pk=game_id)
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    assert [r.seq for r in rows] == list(range(1, game.seq + 1))
    ids = Counter(
        (r.command_id, r.actor_seat)
        for r in rows
        if r.command_id and r.type in ("CardPlayed", "CardsPassed", "MoonChosen")
    )
    assert all(count == 1 for count in ids.values()), ids.most_common(3)
    report = eventstore.audit_game(game)
    assert report.ok, report
    return rows


def assert_one_move_per_turn(rows: list[GameEvent]) -> None:
    """Each seat passes once per hand and plays once per trick."""
    passes = Counter((r.payload.get("hand_number"), r.actor_seat) for r in rows if r.type == "CardsPassed")
    hand, trick_plays, plays = 0, [], []
    for r in rows:
        if r.type == "HandDealt":
            hand = r.payload["hand_number"]
        elif r.type == "CardPlayed":
            trick_plays.append(r.payload["seat"])
        elif r.type == "TrickTaken":
            plays.append((hand, tuple(trick_plays)))
            trick_plays = []
    assert all(count == 1 for count in passes.values()), passes
    for _, seats in plays:
        assert len(seats) == len(set(seats)), f"a seat played twice in one trick: {seats}"
    assert len(trick_plays) == len(set(trick_plays))


# --- 1. a worker killed with SIGKILL while it holds a turn timer ------------------------------


def test_a_worker_killed_holding_a_turn_timer_loses_no_move_and_makes_none_twice(settings, tmp_path):
    settings.HEARTS_TURN_TIME_SCALE = 0.1  # 30 s turns -> 3 s
    from hearts_league.celery import app

    app.control.purge()
    env = {
        "HEARTS_TURN_TIME_SCALE": "0.1",
        "HEARTS_SWEEP_GRACE": "0.5",
        "HEARTS_CPU_DELAY": "0.02",
        "CELERY_VISIBILITY_TIMEOUT": "4",
    }
    first = start_worker(tmp_path / "first.log", **env)
    try:
        time.sleep(2.5)  # connected
        people = [PlayerFactory() for _ in range(4)]
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
        time.sleep(1.2)  # the worker has received the timer (due in 3 s) and holds it unacknowledged
        assert not GameEvent.objects.filter(game=game, type="CardsPassed").exists()
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        stop(first)
    second = start_worker(tmp_path / "second.log", **env)
    try:
        time.sleep(1.0)
        # beat's job: the periodic sweep, plus redelivery of the killed worker's unacked timer
        deadline = time.monotonic() + 45
        while GameEvent.objects.filter(game=game, type="CardsPassed").count() < 4:
            assert time.monotonic() < deadline, "the lost timer's moves were never made"
            app.send_task("tournaments.sweep")
            time.sleep(1.0)
        # and the game goes on: the next turn's timer is honoured by the surviving worker
        wait_for(
            lambda: GameEvent.objects.filter(game=game, type="CardPlayed").count() >= 2,
            timeout=30,
            what="the next timers",
        )
        time.sleep(2.0)  # a late redelivery of the killed worker's timer, if any, has run by now
    finally:
        stop(second)
    rows = assert_log_is_whole(game.pk)
    assert_one_move_per_turn(rows)
    passes = [r for r in rows if r.type == "CardsPassed"]
    assert len(passes) == 4 and {r.cause for r in passes} == {GameEvent.Cause.TIMER}


# --- 2. Redis restarts during a game -------------------------------------------------------------


@pytest.fixture
def private_redis(settings, monkeypatch, tmp_path):
    if redis_server_binary() is None:
        pytest.skip("needs the redis-server binary to restart a private Redis")
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    server = start_redis(port, tmp_path / "redis.log")
    settings.REDIS_URL = url
    settings.CHANNEL_LAYERS = redis_channel_layers(url)
    app = Celery("private-redis", broker=url, set_as_current=False)
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry=False,
        task_publish_retry=False,
        broker_connection_timeout=1,
    )
    monkeypatch.setattr(dispatch_scheduler, "backend", dispatch_scheduler.CeleryScheduler(app))  # to the private Redis
    state = {"port": port, "url": url, "server": server, "app": app}
    yield state
    stop(state["server"])


def test_after_a_redis_restart_clients_resume_with_after_and_nothing_is_half_applied(private_redis, settings, tmp_path):
    settings.HEARTS_CPU_DELAY = 0.05
    worker_env = {"REDIS_URL": private_redis["url"], "HEARTS_CPU_DELAY": "0.05", "HEARTS_SWEEP_GRACE": "0.2"}
    workers = [start_worker(tmp_path / "worker0.log", **worker_env)]

    def supervise():
        """compose's restart: unless-stopped. kombu's Redis transport can crash a worker when the
        broker vanishes ("Unrecoverable error: AttributeError ... 'hostname'")."""
        if workers[-1].poll() is not None:
            workers.append(start_worker(tmp_path / f"worker{len(workers)}.log", **worker_env))

    try:
        time.sleep(2.5)
        people = [PlayerFactory() for _ in range(2)]
        game = game_create(
            creator=people[0],
            rules={"passing": "off"},
            seats=[
                SeatSpec("me"),
                SeatSpec("cpu", bot="rule"),
                SeatSpec("player", player_id=people[1].pk),
                SeatSpec("cpu", bot="rule"),
            ],
        )
        clients = [client_for(p) for p in people]
        seats = {0: clients[0], 2: clients[1]}

        def human_moves(count, ids):
            """The humans play whenever it is their turn; CPUs play via the worker."""
            results = []
            for _ in range(count):

                def humans_turn():
                    supervise()
                    return [s for s in _to_act(game.pk) if s in seats][:1]

                (seat,) = wait_for(humans_turn, timeout=45, what="a human's turn")
                view = seats[seat].get(f"/api/games/{game.pk}/").json()["state"]
                command_id = f"r{next(ids)}"
                body = {**next_command(view), "command_id": command_id}
                try:
                    response = seats[seat].post(f"/api/games/{game.pk}/commands/", body, format="json")
                    results.append((seat, command_id, response.status_code))
                except Exception as error:  # a clear failure is allowed; half-applied is not
                    results.append((seat, command_id, repr(error)))
            return results

        import itertools

        ids = itertools.count()
        before = human_moves(3, ids)
        assert all(code == 200 for _, _, code in before)
        # Redis goes away while a human is to act (with Redis down the CPUs cannot move, so a
        # CPU's turn now would leave nothing for the humans to do)
        wait_for(lambda: [s for s in _to_act(game.pk) if s in seats], timeout=45, what="a human's turn")
        seen = Game.objects.get(pk=game.pk).seq
        stop(private_redis["server"])
        during = human_moves(1, ids)
        time.sleep(0.5)
        for seat, command_id, outcome in during:
            in_log = GameEvent.objects.filter(
                game=game, command_id=command_id, actor_seat=seat, type__in=["CardPlayed", "CardsPassed", "MoonChosen"]
            ).count()
            # the database is up: the command is applied, and the client is told so (no 500 because
            # the notification and the CPU's task could not be sent)
            assert outcome == 200 and in_log == 1, (outcome, in_log)

        private_redis["server"] = start_redis(private_redis["port"], tmp_path / "redis.log")  # ...and comes back, empty
        # lost CPU tasks are remade by the sweeper (beat's job: here a thread sends it every second)
        beat = threading.Event()

        def send_sweeps():
            while not beat.wait(1.0):
                with contextlib.suppress(Exception):
                    private_redis["app"].send_task("tournaments.sweep", queue=django_settings.CELERY_TASK_DEFAULT_QUEUE)

        threading.Thread(target=send_sweeps, daemon=True).start()
        after = human_moves(2, ids)
        assert all(code == 200 for _, _, code in after)
        final_seq = Game.objects.get(pk=game.pk).seq
        assert final_seq > seen

        # a client reconnects with after=N and sees every event since, in order
        async def resume():
            from tests.tournaments.live.test_game_consumer import connect, frames_until

            communicator, connected, _ = await connect(game, people[0], after=seen)
            assert connected
            frames = await frames_until(communicator, lambda f: f["type"] == "update" and f["seq"] >= final_seq)
            await communicator.disconnect()
            return [event["seq"] for f in frames if f["type"] == "update" for event in f["events"]]

        resumed = asyncio.run(resume())
        assert resumed == list(range(seen + 1, seen + 1 + len(resumed)))
        assert resumed[-1] >= final_seq
    finally:
        if "beat" in locals():
            beat.set()
        for worker in workers:
            stop(worker)
    assert_one_move_per_turn(assert_log_is_whole(game.pk))


def _to_act(game_id):
    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: state.to_act)


# --- 3. the database connection drops mid-command -------------------------------------------


def _kill_my_connection():
    """Terminate this test's own PostgreSQL backend from a second connection."""
    pid = connection.connection.info.backend_pid
    with psycopg.connect(database_url().replace("postgres://", "postgresql://", 1), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        # the signal is asynchronous: wait until the backend is gone
        for _ in range(100):
            if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
                break
            time.sleep(0.05)


@pytest.mark.parametrize("when", ["before_commit", "after_commit"])
def test_a_dropped_database_connection_leaves_the_command_whole_or_absent_and_a_retry_is_safe(
    when, scheduler, monkeypatch
):
    people = [PlayerFactory() for _ in range(4)]
    game = game_create(
        creator=people[0],
        rules={"passing": "off"},
        seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
    )
    seat = _to_act(game.pk)[0]
    view = eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda s: s.view(seat))
    command = next_command(view)
    seq_before = Game.objects.get(pk=game.pk).seq
    real_append = eventstore.append_events
    fired = []

    def dropping_append(*args, **kwargs):
        rows = real_append(*args, **kwargs)
        if when == "before_commit" and not fired:
            fired.append(1)
            _kill_my_connection()  # the rows are written but not committed
        return rows

    def dropping_publish(*args, **kwargs):
        if when == "after_commit" and not fired:
            fired.append(1)
            # committed, then the connection (and the reply) is lost before the client hears back
            connection.on_commit(_raise_dropped)

    monkeypatch.setattr(eventstore, "append_events", dropping_append)
    monkeypatch.setattr(game_services, "_publish_on_commit", dropping_publish)
    with pytest.raises((OperationalError, InterfaceError)):
        game_execute_command(game_id=game.pk, player=people[seat], command=command, command_id="drop-1")
    connection.close()  # what Django does with an unusable connection at the end of the request

    stored = GameEvent.objects.filter(game=game, command_id="drop-1")
    if when == "before_commit":
        assert not stored.exists() and Game.objects.get(pk=game.pk).seq == seq_before  # not at all
    else:
        assert stored.count() >= 1 and Game.objects.get(pk=game.pk).seq == seq_before + stored.count()  # fully
    # the client retries with the same command_id: applied once, whatever happened the first time
    monkeypatch.setattr(eventstore, "append_events", real_append)
    result = game_execute_command(game_id=game.pk, player=people[seat], command=command, command_id="drop-1")
    again = game_execute_command(game_id=game.pk, player=people[seat], command=command, command_id="drop-1")
    assert again.duplicate and result.duplicate == (when == "after_commit")
    assert GameEvent.objects.filter(game=game, command_id="drop-1", type="CardPlayed").count() == 1
    assert_log_is_whole(game.pk)
    connection.close()  # leave the next test a fresh connection


def _raise_dropped():
    raise OperationalError("server closed the connection unexpectedly")


# --- 4. two Daphne processes serve one game -------------------------------------------------------


def _start_daphne(port: int, log_path, **extra_env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "hearts_league.asgi:application"],
        cwd=ROOT,
        env=process_env(CELERY_EMBEDDED_WORKER="false", **extra_env),
        stdout=log_path.open("w"),
        stderr=subprocess.STDOUT,
    )


def _http_ok(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def test_two_daphne_processes_serving_one_game_show_everyone_every_play_in_order(tmp_path):
    ports = [free_port(), free_port()]
    servers = [_start_daphne(port, tmp_path / f"daphne{i}.log") for i, port in enumerate(ports)]
    try:
        for port in ports:
            wait_for(lambda port=port: _http_ok(port), timeout=40, what=f"daphne on {port}")
        people = [PlayerFactory() for _ in range(4)]
        spectator = PlayerFactory()
        game = game_create(
            creator=people[0], seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]]
        )
        viewers = [*people, spectator]  # seats 0, 1 and the spectator on one process; 2, 3 on the other
        where = [ports[0], ports[0], ports[1], ports[1], ports[0]]
        tickets = [ws_ticket_issue(user_id=p.user_id, game_id=game.pk) for p in viewers]
        final_seq = asyncio.run(_play_over_two_servers(game.pk, where, tickets, commands=16))
    finally:
        for server in servers:
            stop(server)
    logs = "".join((tmp_path / f"daphne{i}.log").read_text() for i in range(2))
    assert "Traceback" not in logs, logs[-3000:]
    assert final_seq == Game.objects.get(pk=game.pk).seq
    assert_one_move_per_turn(assert_log_is_whole(game.pk))


async def _play_over_two_servers(game_id, ports, tickets, commands):
    sockets = [
        await WebSocket.connect(port, f"/ws/games/{game_id}/?ticket={ticket}&after=0")
        for port, ticket in zip(ports, tickets, strict=True)
    ]
    events = [[] for _ in sockets]
    states = [None] * len(sockets)

    async def read_until_state(index, seq):
        while states[index] is None or states[index]["seq"] < seq:
            frame = await sockets[index].receive_json(timeout=15)
            if frame["type"] == "update":
                events[index].extend((event["seq"], event["type"]) for event in frame["events"])
                states[index] = frame
            assert frame["type"] != "error", frame

    await asyncio.gather(*(read_until_state(i, 1) for i in range(len(sockets))))
    for step in range(commands):
        seq = states[0]["seq"]
        seat = states[0]["state"]["to_act"][0]
        await sockets[seat].send_json(
            {**next_command(states[seat]["state"]), "command_id": f"d{step}", "expected_seq": seq}
        )
        await asyncio.gather(*(read_until_state(i, seq + 1) for i in range(len(sockets))))
        # everyone (either process) converged on the same seq before the next command
        target = max(s["seq"] for s in states)
        await asyncio.gather(*(read_until_state(i, target) for i in range(len(sockets))))
    for socket_events in events:
        assert [seq for seq, _ in socket_events] == list(range(1, len(socket_events) + 1))
    assert all(e == events[0] for e in events), "every viewer sees the same events in the same order"
    for socket in sockets:
        await socket.close()
    return states[0]["seq"]


# --- 5. a Daphne process killed while a player is seated -------------------------------------------


def test_a_killed_daphnes_connections_are_dropped_so_the_cpu_takes_the_seat_and_the_player_gets_it_back(
    settings, tmp_path
):
    from tournaments.autoplay import sweeper
    from tournaments.models import GameSeat, ServerHeartbeat

    # the sweeper runs here; its away check goes to the worker
    settings.HEARTS_SERVER_DEAD_AFTER, settings.HEARTS_AWAY_GRACE = 2.0, 0.5
    worker = start_worker(tmp_path / "worker.log", HEARTS_CPU_DELAY="0.02")
    server_env = {"HEARTS_SERVER_HEARTBEAT": "0.5", "HEARTS_SERVER_DEAD_AFTER": "2", "HEARTS_CPU_DELAY": "0.02"}
    doomed_port, other_port = free_port(), free_port()
    doomed = _start_daphne(doomed_port, tmp_path / "doomed.log", **server_env)
    other = None
    client_loop = asyncio.new_event_loop()  # kept running-ready: its sockets stay open until the end
    try:
        wait_for(lambda: _http_ok(doomed_port), timeout=40, what="daphne")
        human = PlayerFactory()
        game = game_create(
            creator=human, device_id="phone-of-the-human-42", seats=[SeatSpec("me")] + [SeatSpec("cpu", bot="rule")] * 3
        )
        ticket = ws_ticket_issue(user_id=human.user_id, game_id=game.pk)
        client_loop.run_until_complete(_connect_and_wait(doomed_port, game.pk, ticket, "phone-of-the-human-42"))
        wait_for(lambda: ServerHeartbeat.objects.exists(), timeout=10, what="the server's heartbeat")
        doomed.send_signal(signal.SIGKILL)  # its socket to the player is never closed
        doomed.wait(10)
        assert not GameSeat.objects.get(game=game, seat=0).away

        def swept_and_away():
            sweeper.sweep_stalled_games()
            return GameSeat.objects.get(game=game, seat=0).away

        wait_for(swept_and_away, timeout=30, every=0.5, what="the seat to go to the CPU")
        wait_for(
            lambda: GameEvent.objects.filter(
                game=game, type="CardsPassed", actor_seat=0, cause=GameEvent.Cause.CPU
            ).exists(),
            timeout=20,
        )
        assert GameEvent.objects.filter(game=game, type="SeatVacated", actor_seat=0).exists()

        other = _start_daphne(other_port, tmp_path / "other.log", **server_env)
        wait_for(lambda: _http_ok(other_port), timeout=40, what="the second daphne")
        ticket = ws_ticket_issue(user_id=human.user_id, game_id=game.pk)
        back = client_loop.run_until_complete(_connect_and_wait(other_port, game.pk, ticket, "phone-of-the-human-42"))
        assert not GameSeat.objects.get(game=game, seat=0).away
        assert GameEvent.objects.filter(game=game, type="SeatReclaimed", actor_seat=0).exists()
        client_loop.run_until_complete(back.close())
    finally:
        client_loop.close()
        for process in (doomed, other, worker):
            if process is not None and process.poll() is None:
                stop(process)
    assert_log_is_whole(game.pk)


async def _connect_and_wait(port, game_id, ticket, device_id):
    """Connect as the seated player from ``device_id`` and stay until the first update arrives."""
    socket = await WebSocket.connect(port, f"/ws/games/{game_id}/?ticket={ticket}&after=0&device_id={device_id}")
    while (await socket.receive_json(timeout=15))["type"] != "update":
        pass
    return socket


# --- 6. a Daphne stopped (a deploy) while it keeps a live turn's clock ----------------------------


def test_a_daphne_stopped_while_it_keeps_a_live_turns_clock_hands_it_to_the_worker(settings, tmp_path):
    """A live play keeps its turn's deadline on the server's loop, not in Celery. A server stopped
    for a deploy (SIGTERM) sends the deadlines it holds to Celery as it exits, and the worker moves
    for the silent seat at its deadline. No sweeper runs here: without the hand-over the table
    would wait for ever."""
    scale = {"HEARTS_TURN_TIME_SCALE": "0.1"}  # 30 s turns of 3 s
    settings.HEARTS_TURN_TIME_SCALE = 0.1
    port = free_port()
    worker = start_worker(tmp_path / "worker.log", **scale)
    server = _start_daphne(port, tmp_path / "daphne.log", **scale)
    try:
        wait_for(lambda: _http_ok(port), timeout=40, what="daphne")
        people = [PlayerFactory() for _ in range(4)]
        game = game_create(
            creator=people[0],
            turn_seconds=30,
            seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        )
        tickets = [ws_ticket_issue(user_id=p.user_id, game_id=game.pk) for p in people]
        asyncio.run(_live_commands(port, game.pk, tickets, until_cards=2))
        deadline = Game.objects.get(pk=game.pk).turn_deadline
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
        move = wait_for(
            lambda: GameEvent.objects.filter(game=game, type="CardPlayed", cause=GameEvent.Cause.TIMER).first(),
            timeout=20,
            what="the move made for the seat whose time ran out",
        )
    finally:
        stop(server)
        stop(worker)
    assert move.recorded_at >= deadline, "the move came before the turn's time ran out"
    assert (move.recorded_at - deadline).total_seconds() < 3, "the move came late (a sweeper's would)"
    assert "Traceback" not in (tmp_path / "daphne.log").read_text()
    assert_one_move_per_turn(assert_log_is_whole(game.pk))


async def _live_commands(port, game_id, tickets, until_cards):
    """Seat by seat over one Daphne, the awaited seat's first legal command, until this many
    cards are played; then the sockets close."""
    sockets = [await WebSocket.connect(port, f"/ws/games/{game_id}/?ticket={ticket}&after=0") for ticket in tickets]
    states = [None] * len(sockets)

    async def read_until_state(index, seq):
        while states[index] is None or states[index]["seq"] < seq:
            frame = await sockets[index].receive_json(timeout=15)
            assert frame["type"] != "error", frame
            if frame["type"] == "update" and frame["state"] is not None:
                states[index] = frame

    await asyncio.gather(*(read_until_state(i, 1) for i in range(len(sockets))))
    step = 0
    while sum(len(t["cards"]) for t in states[0]["state"]["tricks"]) + len(states[0]["state"]["trick"]) < until_cards:
        seq, seat = states[0]["seq"], states[0]["state"]["to_act"][0]
        command = {**next_command(states[seat]["state"]), "command_id": f"live{step}", "expected_seq": seq}
        await sockets[seat].send_json(command)
        await asyncio.gather(*(read_until_state(i, seq + 1) for i in range(len(sockets))))
        step += 1
    for socket in sockets:
        await socket.close()
