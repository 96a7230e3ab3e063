"""The live table over WebSockets (WebsocketCommunicator against the real ASGI app)."""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from hearts_league.asgi import application
from tests.factories import PlayerFactory
from tests.processes import USING_POSTGRES
from tests.tournaments.helpers import next_command, play_through_services, seated_table
from tournaments.games.tickets import ws_ticket_issue
from tournaments.models import Game, GameEvent

pytestmark = [pytest.mark.django_db(transaction=True)]


async def connect(game, player, after=None, ticket=None, device_id=""):
    if ticket is None:
        ticket = await database_sync_to_async(ws_ticket_issue)(user_id=player.user_id, game_id=game.pk)
    query = f"ticket={ticket}" + (f"&after={after}" if after is not None else "")
    query += f"&device_id={device_id}" if device_id else ""
    communicator = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/?{query}",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=5)
    return communicator, connected, code


async def refusal(communicator) -> tuple[str, int]:
    """A refused connection: accepted, then one error frame, then closed. (error code, close code)"""
    frame = json.loads(await communicator.receive_from(timeout=5))
    assert frame["type"] == "error", frame
    closed = await communicator.receive_output(timeout=5)
    assert closed["type"] == "websocket.close", closed
    return frame["code"], closed["code"]


async def frames_until(communicator, predicate, timeout=5):
    """Collect frames until one satisfies ``predicate`` (inclusive)."""
    frames = []
    while True:
        frame = json.loads(await communicator.receive_from(timeout=timeout))
        frames.append(frame)
        if predicate(frame):
            return frames


def events_of(frames) -> list[dict]:
    """The events of the update frames among ``frames``, in the order they came."""
    return [event for frame in frames if frame["type"] == "update" for event in frame["events"]]


async def drain(communicator, quiet=0.3):
    """Every frame sent until the connection has been quiet for ``quiet`` seconds."""
    frames = []
    while not await communicator.receive_nothing(timeout=quiet):
        frames.append(json.loads(await communicator.receive_from(timeout=5)))
    return frames


def _view(game_id, seat):
    from tournaments.games import eventstore

    return eventstore.read_engine_game(Game.objects.get(pk=game_id), lambda state: state.view(seat))


def _hidden_cards_of_others(game_id, seat):
    """Cards in other seats' hands right now that ``seat`` does not know about."""
    from tournaments.games import eventstore

    game = Game.objects.get(pk=game_id)
    state = eventstore.rebuild_engine_game(game)
    known = set(state.view(seat)["passed"] or []) if seat is not None else set()
    return {str(c) for s in range(game.players_count) if s != seat for c in state.hand(s)} - known


async def test_four_clients_play_a_whole_game_over_websockets(settings):
    # The clients answer at machine speed, faster than the per-connection rate limit allows
    # (on a fast database a seat would be refused now and then, and the game would wait).
    settings.HEARTS_WS_RATE = 1000.0
    game, people, _ = await database_sync_to_async(seated_table)(rules={"end_score": 26})
    sockets = []
    for player in people:
        communicator, connected, _ = await connect(game, player, after=0)
        assert connected
        sockets.append(communicator)
    states = {}
    for seat, communicator in enumerate(sockets):
        frames = await frames_until(communicator, lambda f: f["type"] == "update")
        assert frames[0]["type"] == "hello" and frames[0]["seat"] == seat
        states[seat] = frames[-1]
    seen_seq = [states[s]["seq"] for s in range(4)]
    for _ in range(2000):
        view = states[0]["state"]
        if view["phase"] == "game_over":
            break
        seat = view["to_act"][0]
        await sockets[seat].send_to(
            text_data=json.dumps({**next_command(states[seat]["state"]), "command_id": f"{seat}-{seen_seq[seat]}"})
        )
        for s, communicator in enumerate(sockets):
            frames = await frames_until(communicator, lambda f: f["type"] == "update")
            assert all(isinstance(f["seq"], int) for f in frames), "every frame (acks too) carries the seq"
            events = events_of(frames)
            assert [e["seq"] for e in events] == list(range(seen_seq[s] + 1, seen_seq[s] + 1 + len(events)))
            assert len([f for f in frames if f["type"] == "update"]) == 1, "one frame for the change"
            seen_seq[s] = frames[-1]["seq"]
            states[s] = frames[-1]
    assert states[0]["state"]["phase"] == "game_over"
    game = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert game.status == Game.Status.FINISHED and seen_seq == [game.seq] * 4
    for communicator in sockets:
        await communicator.disconnect()


async def test_a_client_reconnecting_with_after_gets_exactly_the_missed_events():
    game, people, clients = await database_sync_to_async(seated_table)()
    first, _, _ = await connect(game, people[0], after=0)
    frames = await frames_until(first, lambda f: f["type"] == "update")
    last_seen = frames[-1]["seq"]
    await first.disconnect()

    def others_pass():
        for seat in (1, 2, 3):
            view = clients[seat].get(f"/api/games/{game.pk}/").json()["state"]
            clients[seat].post(f"/api/games/{game.pk}/commands/", next_command(view), format="json")

    await database_sync_to_async(others_pass)()
    again, _, _ = await connect(game, people[0], after=last_seen)
    frames = await frames_until(again, lambda f: f["type"] == "update")
    events = [e["seq"] for e in events_of(frames)]
    stored = await database_sync_to_async(
        lambda: list(GameEvent.objects.filter(game=game, seq__gt=last_seen).values_list("seq", flat=True))
    )()
    assert events == stored and len(events) == 3
    await again.send_to(text_data=json.dumps({"type": "resume", "after": last_seen + 1}))
    resent = await frames_until(again, lambda f: f["type"] == "update")
    assert [e["seq"] for e in events_of(resent)] == stored[1:]
    await again.disconnect()


async def test_a_ping_sends_what_a_lost_notification_held_back(monkeypatch):
    """Group messages are at most once: a quiet client's ping brings it up to date."""
    from tournaments.dispatch import notify

    game, people, clients = await database_sync_to_async(seated_table)()
    socket, _, _ = await connect(game, people[0], after=0)
    seen = (await frames_until(socket, lambda f: f["type"] == "update"))[-1]["seq"]
    monkeypatch.setattr(notify, "notify", lambda game_id, seq: None)  # every notification is lost

    def another_seat_passes():
        view = clients[1].get(f"/api/games/{game.pk}/").json()["state"]
        clients[1].post(f"/api/games/{game.pk}/commands/", next_command(view), format="json")

    await database_sync_to_async(another_seat_passes)()
    assert await socket.receive_nothing(timeout=0.3)
    await socket.send_to(text_data=json.dumps({"type": "ping"}))
    frames = await frames_until(socket, lambda f: f["type"] == "pong")
    assert [f["type"] for f in frames] == ["update", "pong"]
    assert [(e["seq"], e["type"]) for e in frames[0]["events"]] == [(seen + 1, "CardsPassed")]
    assert frames[0]["seq"] == frames[-1]["seq"] == seen + 1
    await socket.send_to(text_data=json.dumps({"type": "ping"}))
    assert [f["type"] for f in await frames_until(socket, lambda f: f["type"] == "pong")] == ["pong"]
    await socket.disconnect()


async def test_players_and_spectators_only_receive_what_they_may_see():
    game, people, _ = await database_sync_to_async(seated_table)()
    spectator = await database_sync_to_async(PlayerFactory)()
    viewers = [*people, spectator]
    sockets = [(await connect(game, p, after=0))[0] for p in viewers]
    for _ in range(8):  # passing, then the first tricks
        received = []
        for communicator in sockets:
            received.append(await drain(communicator, quiet=0.2))
        for index, frames in enumerate(received):
            seat = index if index < 4 else None
            hidden = await database_sync_to_async(_hidden_cards_of_others)(game.pk, seat)
            current = json.dumps([f["state"] for f in frames if f["type"] == "update"][-1:])
            leaked = {card for card in hidden if f'"{card}"' in current}
            assert not leaked, f"viewer {seat} was shown {leaked}"
            for event in events_of(frames):
                if event["type"] == "HandDealt":
                    hands = event["payload"]["hands"]
                    assert [h is not None for h in hands] == [s == seat for s in range(4)]
        seat_to_act = (await database_sync_to_async(_view)(game.pk, None))["to_act"][0]
        own = await database_sync_to_async(_view)(game.pk, seat_to_act)
        await sockets[seat_to_act].send_to(text_data=json.dumps(next_command(own)))
    for communicator in sockets:
        await communicator.disconnect()


async def test_an_illegal_move_gets_an_error_frame_and_changes_nothing():
    game, people, _ = await database_sync_to_async(seated_table)(rules={"passing": "off"})
    sockets = [(await connect(game, p, after=0))[0] for p in people]
    caught_up = [await drain(communicator) for communicator in sockets]
    state = [f for f in caught_up[0] if f["type"] == "update"][-1]
    leader = state["state"]["to_act"][0]
    other = (leader + 1) % 4
    seq = state["seq"]
    await sockets[other].send_to(text_data=json.dumps({"type": "play", "card": "2C", "command_id": "x1"}))
    replies = await frames_until(sockets[other], lambda f: f["type"] == "error")
    assert replies[-1]["code"] in {"not_your_turn", "card_not_in_hand"}
    assert replies[-1]["command_id"] == "x1"
    assert await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).seq)() == seq
    await sockets[leader].send_to(text_data=json.dumps({"type": "play", "card": "2C", "expected_seq": 1}))
    stale = await frames_until(sockets[leader], lambda f: f["type"] == "error")
    assert stale[-1]["code"] == "stale_state"
    for seat, communicator in enumerate(sockets):
        assert [f["type"] for f in await drain(communicator)] == [], f"seat {seat} was sent something"
    await sockets[leader].send_to(text_data=json.dumps({"type": "play", "card": "2C", "expected_seq": seq}))
    for communicator in sockets:
        played = await frames_until(communicator, lambda f: f["type"] == "update")
        assert [e["type"] for e in events_of(played)] == ["CardPlayed"]
        assert played[-1]["seq"] == seq + 1, "the refused moves left the game as it was"
    for communicator in sockets:
        await communicator.disconnect()


@pytest.mark.parametrize(
    "raw, code",
    [
        ("not json", "invalid_json"),
        ("[1, 2]", "invalid_frame"),
        (json.dumps({"type": "dance"}), "unknown_frame_type"),
        (json.dumps({"type": "play", "card": 7}), "invalid"),
        (json.dumps({"type": "pass", "cards": "QS"}), "invalid"),
        (json.dumps({"type": "resume", "after": "ten"}), "invalid"),
        (json.dumps({"type": "play", "card": "QS", "pad": "x" * 5000}), "frame_too_large"),
        (json.dumps({"type": "play", "card": "Q\x00S"}), "nul_character"),
    ],
)
async def test_malformed_frames_get_an_error_frame(raw, code):
    game, people, _ = await database_sync_to_async(seated_table)()
    communicator, _, _ = await connect(game, people[0])
    await frames_until(communicator, lambda f: f["type"] == "hello")
    await communicator.send_to(text_data=raw)
    frames = await frames_until(communicator, lambda f: f["type"] == "error")
    assert frames[-1]["code"] == code and frames[-1]["seq"] == game.seq  # the last seq it was sent
    await communicator.send_to(text_data=json.dumps({"type": "ping"}))
    assert (await frames_until(communicator, lambda f: f["type"] == "pong"))[-1]["type"] == "pong"
    await communicator.disconnect()


async def test_a_flood_is_rate_limited_then_closed(settings):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST, settings.HEARTS_WS_FLOOD_CLOSE = 1.0, 5, 10
    game, people, _ = await database_sync_to_async(seated_table)()
    communicator, _, _ = await connect(game, people[0])
    await frames_until(communicator, lambda f: f["type"] == "hello")
    for _ in range(40):
        await communicator.send_to(text_data=json.dumps({"type": "ping"}))
    codes = []
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            assert output["code"] == 4429
            break
        frame = json.loads(output["text"])
        codes.append(frame.get("code"))
    assert "rate_limited" in codes


async def test_connections_without_a_valid_ticket_are_refused_and_tickets_are_single_use():
    game, people, _ = await database_sync_to_async(seated_table)()
    forged, connected, _ = await connect(game, people[0], ticket="forged")
    # accepted, then closed with the code: a browser sees 4401 (a refused handshake is only 1006)
    assert connected and await refusal(forged) == ("unauthenticated", 4401)
    ticket = await database_sync_to_async(ws_ticket_issue)(user_id=people[0].user_id, game_id=game.pk)
    first, connected, _ = await connect(game, people[0], ticket=ticket)
    assert connected
    assert (await frames_until(first, lambda f: f["type"] == "hello"))[0]["seat"] == 0
    again, connected, _ = await connect(game, people[0], ticket=ticket)
    assert connected and await refusal(again) == ("unauthenticated", 4401)
    await first.disconnect()


async def test_a_browser_session_cookie_opens_the_socket_as_its_player():
    game, people, _ = await database_sync_to_async(seated_table)()

    def session_cookie():
        from django.test import Client

        browser = Client()
        browser.force_login(people[2].user)
        return browser.cookies["sessionid"].value

    cookie = await database_sync_to_async(session_cookie)()
    communicator = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/?after=0",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", f"sessionid={cookie}".encode()),
        ],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    frames = await frames_until(communicator, lambda f: f["type"] == "update")
    assert frames[0]["type"] == "hello" and frames[0]["seat"] == 2 and frames[0]["seq"] == game.seq
    assert len(frames[-1]["state"]["hand"]) == 13
    await communicator.disconnect()
    stranger = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", b"sessionid=not-a-session")],
    )
    connected, _ = await stranger.connect(timeout=5)
    assert connected  # no valid session and no ticket: an anonymous spectator, who sees no hand
    frames = await frames_until(stranger, lambda f: f["type"] == "update")
    assert frames[0]["seat"] is None and frames[-1]["state"]["hand"] is None
    await stranger.disconnect()


async def test_a_ticket_for_another_game_or_a_foreign_origin_is_refused():
    game, people, _ = await database_sync_to_async(seated_table)()
    other, _, _ = await database_sync_to_async(seated_table)()
    ticket = await database_sync_to_async(ws_ticket_issue)(user_id=people[0].user_id, game_id=other.pk)
    elsewhere, connected, _ = await connect(game, people[0], ticket=ticket)
    assert connected and await refusal(elsewhere) == ("unauthenticated", 4401)
    ticket = await database_sync_to_async(ws_ticket_issue)(user_id=people[0].user_id, game_id=game.pk)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/?ticket={ticket}",
        headers=[(b"origin", b"https://evil.example"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert not connected


async def test_resuming_past_the_games_last_event_is_refused_and_live_play_goes_on():
    game, people, clients = await database_sync_to_async(seated_table)()
    communicator, connected, _ = await connect(game, people[0], after=9999)
    assert connected
    refused = await frames_until(communicator, lambda f: f["type"] == "error")
    assert refused[-1]["code"] == "after_beyond_game" and refused[-1]["seq"] == game.seq
    await communicator.send_to(text_data=json.dumps({"type": "resume", "after": game.seq + 5}))
    assert (await frames_until(communicator, lambda f: f["type"] == "error"))[-1]["code"] == "after_beyond_game"

    def seat_one_passes():
        view = clients[1].get(f"/api/games/{game.pk}/").json()["state"]
        clients[1].post(f"/api/games/{game.pk}/commands/", next_command(view), format="json")

    await database_sync_to_async(seat_one_passes)()
    frames = await frames_until(communicator, lambda f: f["type"] == "update")
    assert [e["seq"] for e in events_of(frames)] == [game.seq + 1]
    await communicator.disconnect()


async def test_closing_the_last_socket_hands_the_seat_to_the_cpu_and_the_same_device_takes_it_back(scheduler):
    from tournaments.live import presence
    from tournaments.models import GameSeat, SeatConnection, ServerHeartbeat

    game, people, _ = await database_sync_to_async(seated_table)(device_id="phone-of-seat-0-1234")
    connections = database_sync_to_async(lambda: SeatConnection.objects.filter(seat__game=game, seat__seat=0).count())
    phone, connected, _ = await connect(game, people[0], device_id="phone-of-seat-0-1234")
    assert connected
    await frames_until(phone, lambda f: f["type"] == "hello")
    assert await connections() == 1
    heartbeat = database_sync_to_async(lambda: ServerHeartbeat.objects.filter(server=presence.server_id()).exists())
    for _ in range(50):
        if await heartbeat():
            break
        await asyncio.sleep(0.05)
    assert await heartbeat(), "a server holding a seated connection records its heartbeat"

    await phone.disconnect()
    assert await connections() == 0
    [(game_id, seat, since)] = scheduler.away_checks
    assert (game_id, seat) == (game.pk, 0)
    assert await database_sync_to_async(presence.seat_vacate_if_still_gone)(game_id=game.pk, seat=0, since=since)
    away = database_sync_to_async(lambda: GameSeat.objects.get(game=game, seat=0).away)
    assert await away()

    laptop, _, _ = await connect(game, people[0], device_id="someone-elses-laptop")
    await frames_until(laptop, lambda f: f["type"] == "update")
    assert await away(), "another device does not take the seat back"
    await laptop.disconnect()
    phone, _, _ = await connect(game, people[0], after=0, device_id="phone-of-seat-0-1234")
    frames = await frames_until(phone, lambda f: f["type"] == "update")
    assert not await away()
    types = [e["type"] for e in events_of(frames)]
    assert types.index("SeatVacated") < types.index("SeatReclaimed")
    await phone.disconnect()


async def test_a_ticket_from_the_rest_api_opens_the_socket_as_a_spectator():
    game, _, _ = await database_sync_to_async(seated_table)()
    watcher = await database_sync_to_async(PlayerFactory)()
    from tests.tournaments.helpers import client_for

    body = await database_sync_to_async(lambda: client_for(watcher).post(f"/api/games/{game.pk}/ws-ticket/").json())()
    communicator, connected, _ = await connect(game, watcher, ticket=body["ticket"], after=0)
    assert connected
    frames = await frames_until(communicator, lambda f: f["type"] == "update")
    assert frames[0]["seat"] is None and frames[-1]["state"]["hand"] is None
    await communicator.send_to(text_data=json.dumps({"type": "play", "card": "2C"}))
    assert (await frames_until(communicator, lambda f: f["type"] == "error"))[-1]["code"] == "not_seated"
    await communicator.disconnect()


on_postgres = pytest.mark.skipif(not USING_POSTGRES, reason="moves and closes are written from the loop on PostgreSQL")


@on_postgres
async def test_passes_sent_together_reach_every_seat_from_memory_without_replaying_the_log(monkeypatch):
    """Every hand starts with four passes at once. A seat told of one while the next is being
    written waits for that write and builds its frame from memory: the log is never replayed on
    the database thread meanwhile (every table of a round at once, it held up the others)."""
    from tournaments.games import loop_db
    from tournaments.live.consumers import GameConsumer

    game, people, _ = await database_sync_to_async(seated_table)()
    sockets = [(await connect(game, player, after=0))[0] for player in people]
    states = [(await frames_until(s, lambda f: f["type"] == "update"))[-1] for s in sockets]
    # every statement of a move takes a while: each pass is written while the last is announced
    real_fetch, read_from_the_database = loop_db.fetch, []

    async def slow_fetch(statement, params):
        await asyncio.sleep(0.03)
        return await real_fetch(statement, params)

    real_frames_after = GameConsumer._frames_after

    def frames_after(consumer, after, at_least):
        read_from_the_database.append(after)
        return real_frames_after(consumer, after, at_least)

    monkeypatch.setattr(loop_db, "fetch", slow_fetch)
    monkeypatch.setattr(GameConsumer, "_frames_after", frames_after)
    for seat, communicator in enumerate(sockets):
        command = {**next_command(states[seat]["state"]), "command_id": f"pass-{seat}"}
        await communicator.send_to(text_data=json.dumps(command))
    for seat, communicator in enumerate(sockets):
        frames = await frames_until(
            communicator, lambda f: any(e["type"] == "PassCompleted" for e in f.get("events", ()))
        )
        passes = [e for e in events_of(frames) if e["type"] == "CardsPassed"]
        assert sorted(e["payload"]["seat"] for e in passes) == [0, 1, 2, 3]
        # each seat sees its own three cards, never another's
        assert all((e["payload"]["cards"] is not None) == (e["payload"]["seat"] == seat) for e in passes), passes
    assert read_from_the_database == []
    for communicator in sockets:
        await communicator.disconnect()


@on_postgres
async def test_sockets_closing_after_the_game_ended_drop_their_rows_without_the_games_lock(monkeypatch):
    """Everyone leaves when a game ends (a round's tables within seconds): a finished game starts
    no grace period, so a closing socket only drops its row, from the loop, instead of queueing
    on the database thread behind the tables still playing."""
    from tournaments.live import presence
    from tournaments.models import SeatConnection

    game, people, _ = await database_sync_to_async(seated_table)(hand_limit=1)
    sockets = [(await connect(game, player, after=0))[0] for player in people]
    for communicator in sockets:
        await frames_until(communicator, lambda f: f["type"] == "update")
    assert await database_sync_to_async(SeatConnection.objects.filter(seat__game=game).count)() == 4
    await database_sync_to_async(play_through_services)(game, people)
    locked = []
    monkeypatch.setattr(presence, "seat_disconnected", lambda **closed: locked.append(closed))
    for communicator in sockets:
        await communicator.disconnect()
    assert locked == []
    assert await database_sync_to_async(SeatConnection.objects.filter(seat__game=game).count)() == 0


@on_postgres
async def test_a_socket_closing_after_the_game_ended_whose_loop_connection_failed_takes_the_locked_path(
    monkeypatch,
):
    from tournaments.games import loop_db, queries
    from tournaments.models import SeatConnection

    game, people, _ = await database_sync_to_async(seated_table)(hand_limit=1)
    communicator = (await connect(game, people[0], after=0))[0]
    await frames_until(communicator, lambda f: f["type"] == "update")
    await database_sync_to_async(play_through_services)(game, people)

    async def failed(connection_id):
        raise loop_db.ConnectionFailed("the server closed the connection")

    monkeypatch.setattr(queries, "connection_dropped_async", failed)
    await communicator.disconnect()
    assert await database_sync_to_async(SeatConnection.objects.filter(seat__game=game).count)() == 0


async def test_a_retried_command_is_acknowledged_as_a_duplicate_and_plays_nothing_twice():
    """A client that lost the ack sends its command again with the same ``command_id``: it gets
    an ack marked duplicate, no error, and the card stays played once."""
    game, people, _ = await database_sync_to_async(seated_table)(rules={"passing": "off"})
    sockets = [(await connect(game, p, after=0))[0] for p in people]
    caught_up = [await drain(communicator) for communicator in sockets]
    state = [f for f in caught_up[0] if f["type"] == "update"][-1]
    leader = state["state"]["to_act"][0]
    frame = json.dumps({"type": "play", "card": "2C", "command_id": "retry-1"})
    await sockets[leader].send_to(text_data=frame)
    first = await frames_until(sockets[leader], lambda f: f["type"] == "ack")
    assert first[-1]["duplicate"] is False
    played_at = first[-1]["seq"]
    assert [f["type"] for f in await drain(sockets[leader])] == ["update"]
    await sockets[leader].send_to(text_data=frame)
    again = await drain(sockets[leader])
    assert [(f["type"], f.get("duplicate"), f.get("seq")) for f in again] == [("ack", True, played_at)]
    played = database_sync_to_async(
        lambda: GameEvent.objects.filter(game=game, command_id="retry-1", type="CardPlayed").count()
    )
    assert await played() == 1
    for communicator in sockets:
        await communicator.disconnect()
