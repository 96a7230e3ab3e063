"""The tournament's live board over ``ws/tournaments/<id>/``: pushed on every change, never a card."""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from engine.cards import NAMES
from hearts_league.asgi import application
from tests.factories import LeagueFactory, PlayerFactory
from tests.tournaments.helpers import next_command
from tournaments.competitions import services
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command
from tournaments.models import Game

pytestmark = [pytest.mark.django_db(transaction=True)]
CARD_NAMES = set(NAMES.values()) if isinstance(NAMES, dict) else set(NAMES)


def _strings(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def assert_no_card(frame):
    shown = set(_strings(frame)) & CARD_NAMES
    assert not shown, f"the board shows cards {shown}"


async def connect(tournament_id):
    communicator = WebsocketCommunicator(
        application,
        f"/ws/tournaments/{tournament_id}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


def _tournament(n):
    tournament = services.tournament_create(
        league=LeagueFactory(), name="Board night", seed=3, round_mode="fixed_hands", hands_per_round=2
    )
    people = [PlayerFactory() for _ in range(n)]
    for person in people:
        services.tournament_register(tournament_id=tournament.pk, player=person)
    return tournament, {p.pk: p for p in people}


def _play_one(game_id, people):
    game = Game.objects.get(pk=game_id)
    seat = eventstore.read_engine_game(game, lambda state: state.to_act[0])
    view = eventstore.read_engine_game(game, lambda state: state.view(seat))
    player_id = game.seats.get(seat=seat).player_id
    game_execute_command(game_id=game_id, player=people[player_id], command=next_command(view))
    return seat


async def test_the_board_is_pushed_when_the_round_starts_and_as_cards_are_played_without_a_card():
    tournament, people = await database_sync_to_async(_tournament)(7)
    board = await connect(tournament.pk)
    first = json.loads(await board.receive_from(timeout=5))
    assert first["type"] == "board" and first["round"] is None and len(first["standings"]) == 7

    await database_sync_to_async(services.tournament_start_round)(tournament_id=tournament.pk)
    started = json.loads(await board.receive_from(timeout=5))
    assert started["round"]["number"] == 1 and started["round"]["status"] == "playing"
    assert [len(t["seats"]) for t in started["tables"]] == [4, 3]  # tables of 4 and 3 by the seating rule
    table = started["tables"][0]
    assert table["hand_number"] == 1 and table["to_act"] and table["since"]
    assert {s["player_id"] for t in started["tables"] for s in t["seats"]} == set(people)
    assert_no_card(started)

    await database_sync_to_async(_play_one)(table["game"], people)
    moved = json.loads(await board.receive_from(timeout=5))
    assert moved["type"] == "board"
    assert_no_card(moved)
    assert moved["tables"][0]["since"] >= table["since"]

    await board.send_to(text_data=json.dumps({"type": "ping"}))
    assert json.loads(await board.receive_from(timeout=5))["type"] == "board"
    assert json.loads(await board.receive_from(timeout=5))["type"] == "pong"
    await board.send_to(text_data=json.dumps({"type": "play", "card": "2C"}))
    refused = json.loads(await board.receive_from(timeout=5))
    assert refused == {
        "type": "error",
        "code": "invalid_frame",
        "detail": "The board is read-only: the only frame it takes is ping.",
    }
    await board.disconnect()


async def test_an_unknown_tournament_is_refused_with_a_close_code():
    board = WebsocketCommunicator(
        application, "/ws/tournaments/999999/", headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")]
    )
    connected, _ = await board.connect(timeout=5)
    assert connected
    frame = json.loads(await board.receive_from(timeout=5))
    assert frame["code"] == "tournament_not_found"
    closed = await board.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}


async def test_hostile_frames_get_an_error_frame_and_a_flood_closes_the_board(settings):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST, settings.HEARTS_WS_FLOOD_CLOSE = 0.001, 3, 2
    tournament, _ = await database_sync_to_async(_tournament)(4)
    board = await connect(tournament.pk)
    assert json.loads(await board.receive_from(timeout=5))["type"] == "board"
    for raw in ("not json", "x" * 10_000, "[1, 2]"):
        await board.send_to(text_data=raw)
        frame = json.loads(await board.receive_from(timeout=5))
        assert frame["type"] == "error" and frame["code"] == "invalid_frame", raw[:20]
    for _ in range(3):
        await board.send_to(text_data='{"type": "ping"}')
    codes = []
    while True:
        message = await board.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            assert message["code"] == 4429
            break
        codes.append(json.loads(message["text"]).get("code"))
    assert codes == ["rate_limited", "rate_limited"]


async def test_connections_told_of_the_same_change_share_one_read_of_the_board(monkeypatch):
    from tournaments.live.board_consumer import TournamentBoardConsumer

    tournament, _ = await database_sync_to_async(_tournament)(4)
    boards = [await connect(tournament.pk) for _ in range(3)]
    for board in boards:
        assert json.loads(await board.receive_from(timeout=5))["type"] == "board"
    reads = []
    real = TournamentBoardConsumer._read
    monkeypatch.setattr(TournamentBoardConsumer, "_read", lambda self: reads.append(1) or real(self))
    await database_sync_to_async(services.tournament_start_round)(tournament_id=tournament.pk)
    for board in boards:
        frame = json.loads(await board.receive_from(timeout=5))
        assert frame["round"]["status"] == "playing"
    assert len(reads) == 1
    for board in boards:
        await board.disconnect()


async def test_a_table_waiting_on_a_player_who_is_not_at_it_is_marked_until_they_open_it():
    from tournaments.games.tickets import ws_ticket_issue

    tournament, people = await database_sync_to_async(_tournament)(4)
    board = await connect(tournament.pk)
    await board.receive_from(timeout=5)
    await database_sync_to_async(services.tournament_start_round)(tournament_id=tournament.pk)
    table = json.loads(await board.receive_from(timeout=5))["tables"][0]
    seat = table["to_act"][0]
    assert table["waiting_on_absent"] == table["to_act"] and not table["seats"][seat]["connected"]
    player = people[table["seats"][seat]["player_id"]]
    ticket = await database_sync_to_async(ws_ticket_issue)(user_id=player.user_id, game_id=table["game"])
    at_table = WebsocketCommunicator(
        application,
        f"/ws/games/{table['game']}/?ticket={ticket}",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    assert (await at_table.connect(timeout=5))[0]
    await board.send_to(text_data=json.dumps({"type": "ping"}))
    seen = json.loads(await board.receive_from(timeout=5))["tables"][0]
    assert seen["seats"][seat]["connected"] and seat not in seen["waiting_on_absent"]
    await at_table.disconnect()
    await board.disconnect()


# --- a sealed table (its duplicate deals played at other tables of the round) --------------------

# A table's fields read from its game's progress: null at a sealed table until the round is over.
PROGRESS = ("hand_number", "phase", "to_act", "since", "waiting_on_absent", "cpu_to_act", "totals")


def _duplicate_round():
    """11 players at 4s, duplicate deals: tables 1 and 2 (4 players) share deals and are sealed;
    table 3 (3 players) plays deals of its own and is not."""
    tournament = services.tournament_create(
        league=LeagueFactory(),
        name="Duplicate board",
        seed=5,
        duplicate_deals=True,
        round_mode="fixed_hands",
        hands_per_round=2,
        rules_overrides={"moon": "shooter_chooses"},
    )
    people = [PlayerFactory() for _ in range(11)]
    for person in people:
        services.tournament_register(tournament_id=tournament.pk, player=person)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    tables = list(round_.tables.order_by("number").select_related("game"))
    assert [len(t.players) for t in tables] == [4, 4, 3]
    assert [t.game.sealed for t in tables] == [True, True, False]
    return tournament, {p.pk: p for p in people}, tables


def _session_cookie(player):
    from django.test import Client

    browser = Client()
    browser.force_login(player.user)
    return browser.cookies["sessionid"].value


def _rest_board(client, tournament_id):
    response = client.get(f"/api/tournaments/{tournament_id}/board/")
    assert response.status_code == 200, response.content
    return response.json()


def _truth(game_id):
    """What the engine knows of the game's progress (what the board must not tell of a sealed one)."""
    game = Game.objects.get(pk=game_id)
    if game.status == Game.Status.FINISHED:
        return (game.status, None, None, ())
    return eventstore.read_engine_game(
        game, lambda state: (game.status, state.hand_number, state.phase, tuple(state.to_act))
    )


async def _board_now(socket, pushed):
    """The socket's board as of now: ping, and take the board sent just before the pong (the
    boards pushed meanwhile are kept in ``pushed``)."""
    await socket.send_to(text_data=json.dumps({"type": "ping"}))
    last = None
    while True:
        frame = json.loads(await socket.receive_from(timeout=5))
        if frame["type"] == "pong":
            assert last is not None
            return {key: value for key, value in last.items() if key != "type"}
        assert frame["type"] == "board", frame
        pushed.append(frame)
        last = frame


async def test_a_sealed_table_shows_nothing_of_its_play_on_the_board_rest_or_socket_to_anyone(settings):
    from rest_framework.test import APIClient

    from tests.tournaments.helpers import client_for
    from tournaments.autoplay.sweeper import game_run_finished_hooks

    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST = 1000.0, 1000
    tournament, people, tables = await database_sync_to_async(_duplicate_round)()
    first, second, third = tables
    rival = people[second.players[0]]  # a player at the other table playing table 1's deals
    rest = {"anonymous": APIClient(), "rival": await database_sync_to_async(client_for)(rival)}
    cookie = await database_sync_to_async(_session_cookie)(rival)
    sockets = {}
    for label, headers in (("anonymous", []), ("rival", [(b"cookie", f"sessionid={cookie}".encode())])):
        socket = WebsocketCommunicator(
            application,
            f"/ws/tournaments/{tournament.pk}/",
            headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), *headers],
        )
        assert (await socket.connect(timeout=5))[0]
        sockets[label] = socket
    pushed = []

    async def boards():
        """Every reader's board now (REST and socket, anonymous and the rival): one board. A
        finished game's table turns finished in the background (its follow-ups): read again
        if that happened between two readers."""
        for attempt in range(3):
            seen = {}
            for label, client in rest.items():
                seen[f"rest {label}"] = await database_sync_to_async(_rest_board)(client, tournament.pk)
            for label, socket in sockets.items():
                seen[f"socket {label}"] = await _board_now(socket, pushed)
            one = seen["rest anonymous"]
            for board in seen.values():
                assert_no_card(board)
            if attempt < 2 and any(board != one for board in seen.values()):
                await asyncio.sleep(0.2)
                continue
            for door, board in seen.items():
                assert board == one, door
            return {table["number"]: table for table in one["tables"]}

    start = await boards()
    hidden = start[1]
    assert hidden["sealed"] is True and hidden["status"] == "playing" and hidden["game"] == first.game_id
    assert [s["player_id"] for s in hidden["seats"]] == first.players
    assert all(s["name"] for s in hidden["seats"])
    assert {key: hidden[key] for key in PROGRESS} == dict.fromkeys(PROGRESS)
    assert start[2]["sealed"] is True and {key: start[2][key] for key in PROGRESS} == dict.fromkeys(PROGRESS)
    # the same keys at every table: a hidden one is told apart only by its nulls and `sealed`
    assert set(hidden) == set(start[2]) == set(start[3])

    # table 3 plays deals of its own: its progress is shown and follows its play
    shown = start[3]
    assert shown["sealed"] is False and shown["hand_number"] == 1 and shown["phase"] == "passing"
    assert shown["to_act"] and shown["since"] and shown["waiting_on_absent"] == shown["to_act"]
    assert shown["cpu_to_act"] is False
    await database_sync_to_async(_play_one)(third.game_id, people)
    moved = (await boards())[3]
    truth = await database_sync_to_async(_truth)(third.game_id)
    assert (moved["hand_number"], moved["phase"], tuple(moved["to_act"])) == truth[1:]
    assert moved["to_act"] != shown["to_act"] and moved["since"] >= shown["since"]

    # table 1 plays its whole game (the pass, the 2♣'s lead, every trick, a second hand) while
    # table 2 has not started: its entry is the same at every moment, to every reader
    truths = {await database_sync_to_async(_truth)(first.game_id)}
    moves = 0
    while (await database_sync_to_async(_truth)(first.game_id))[0] == Game.Status.ACTIVE:
        await database_sync_to_async(_play_one)(first.game_id, people)
        moves += 1
        truths.add(await database_sync_to_async(_truth)(first.game_id))
        if moves % 3 and (await database_sync_to_async(_truth)(first.game_id))[0] == Game.Status.ACTIVE:
            continue  # every third move (and the last) is looked at: enough moments, and quick
        now = await boards()
        assert now[1] == {**hidden, "status": now[1]["status"]}, moves  # finished once its game is
        assert now[2] == start[2], moves
    assert moves > 100 and len({t[3] for t in truths}) > 3 and {t[1] for t in truths} >= {1, 2}
    for frame in pushed:  # the boards pushed as it played, too
        entry = next(t for t in frame["tables"] if t["number"] == 1)
        assert entry in (hidden, {**hidden, "status": "finished"}), entry

    # over: its table is finished, and still nothing else of it is shown while table 2 plays
    await database_sync_to_async(game_run_finished_hooks)(game_id=first.game_id)
    over = await boards()
    assert over[1] == {**hidden, "status": "finished"}
    assert over[2] == start[2]
    for socket in sockets.values():
        await socket.disconnect()


async def test_a_spectator_coming_and_going_at_a_table_leaves_the_board_open():
    """Found by review: the board follows each table's game group, where the table's own
    messages (who watches, a rematch offered) go too; with no handler for them the board's
    connection died whenever someone opened or left a table of the round."""
    tournament, _ = await database_sync_to_async(_tournament)(4)
    await database_sync_to_async(services.tournament_start_round)(tournament_id=tournament.pk)
    board = await connect(tournament.pk)
    table = json.loads(await board.receive_from(timeout=5))["tables"][0]
    spectator = WebsocketCommunicator(
        application,
        f"/ws/games/{table['game']}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    assert (await spectator.connect(timeout=5))[0]  # joins the table's spectators: game.watchers
    await spectator.disconnect()
    while not await board.receive_nothing(timeout=0.5):
        assert (await board.receive_output(timeout=5))["type"] == "websocket.send"  # no close
    await board.send_to(text_data=json.dumps({"type": "ping"}))
    assert json.loads(await board.receive_from(timeout=5))["type"] == "board"
    assert json.loads(await board.receive_from(timeout=5))["type"] == "pong"
    await board.disconnect()


async def test_a_sealed_tables_moves_push_no_board_frame_so_its_pace_is_not_told(settings):
    """Found by review: each move at a sealed table pushed a board frame, the same every time,
    telling the other tables of its round how fast it was playing their deals."""
    settings.HEARTS_BOARD_EVERY = 0.01
    tournament, people, tables = await database_sync_to_async(_duplicate_round)()
    first, _, third = tables
    socket = await connect(tournament.pk)
    assert json.loads(await socket.receive_from(timeout=5))["type"] == "board"
    for _ in range(12):  # the passes and the first tricks of table 1
        await database_sync_to_async(_play_one)(first.game_id, people)
    assert await socket.receive_nothing(timeout=0.5)
    await database_sync_to_async(_play_one)(third.game_id, people)  # a table with deals of its own
    moved = json.loads(await socket.receive_from(timeout=5))
    assert moved["type"] == "board" and next(t for t in moved["tables"] if t["number"] == 3)["since"]
    await socket.send_to(text_data=json.dumps({"type": "ping"}))  # asked for, the board comes anyway
    assert [json.loads(await socket.receive_from(timeout=5))["type"] for _ in range(2)] == ["board", "pong"]
    await socket.disconnect()
