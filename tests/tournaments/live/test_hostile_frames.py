"""Hostile WebSocket frames (hypothesis): whatever a client sends, the connection answers with
frames, never with a ``server_error``, and stays open and usable, and its disconnect cleanup
still runs (a connection that dies keeps its seat's connection row for ever, so a CPU would never
take an absent player's seat). Among the frames are the seat's legal commands, made while the
other seats play on, and those commands sent again as a client that lost the ``ack`` retries."""

from __future__ import annotations

import itertools
import json
import os

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st

from tests.tournaments.helpers import next_command, seated_table
from tests.tournaments.live.test_game_consumer import _view, connect
from tournaments.games.services import game_execute_command
from tournaments.models import Game, SeatConnection

HOSTILE_EXAMPLES = int(os.environ.get("HEARTS_HOSTILE_FRAMES", "25"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
KNOWN = ["play", "pass", "moon_choice", "resume", "ping", "accept_invitation", "decline_invitation"]
typed_frames = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN) | st.text(max_size=12) | json_values},
    optional={
        "card": json_values,
        "cards": json_values,
        "choice": json_values,
        "after": json_values,
        "command_id": json_values,
        "expected_seq": json_values,
        "seat": json_values,
    },
).map(json.dumps)
nested = st.integers(1, 2040).flatmap(
    lambda depth: st.sampled_from(
        [
            "[" * depth + "]" * depth,
            '{"a":' * depth + "1" + "}" * depth,
            '{"type": "play", "card": ' + "[" * depth + "]" * depth + "}",
        ]
    )
)
raw = st.text(max_size=200) | st.sampled_from(
    [
        '{"type": "play", "card": 1e999999}',
        "NaN",
        '{"type": NaN}',
        '"\\ud800"',
        '{"type": "ping", "type": 3}',
        "{" * 5000,
        " " * 5000,
    ]
)
LEGAL, AGAIN = "<the seat's legal command>", "<the last command sent again>"
moves = st.sampled_from([LEGAL, AGAIN])
# Moves weigh as much as all the hostile kinds together, so a command and its retry often meet.
hostile = typed_frames | nested | raw | st.binary(max_size=64)
frames = st.lists(st.booleans().flatmap(lambda move: moves if move else hostile), min_size=1, max_size=12)
_command_ids = itertools.count()


def _legal_command(game_id: int, people: list, seat: int = 0) -> str | None:
    """The other seats act through the services until ``seat`` is to act; then ``seat``'s legal
    command as its client sends it (a command id; a play with ``expected_seq``), or None once
    the game is over."""
    for _ in range(60):
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return None
        to_act = _view(game_id, None)["to_act"]
        if seat in to_act:
            command = {**next_command(_view(game_id, seat)), "command_id": f"hostile-{next(_command_ids)}"}
            if command["type"] == "play":
                command["expected_seq"] = game.seq
            return json.dumps(command)
        game_execute_command(game_id=game_id, player=people[to_act[0]], command=next_command(_view(game_id, to_act[0])))
    raise AssertionError(f"seat {seat} of game {game_id} was never to act")


@pytest.fixture
def table() -> dict:
    """One table for all of a test's examples (hypothesis reuses function fixtures across them)."""
    return {}


async def _answered(socket, answers: list) -> None:
    """Every frame sent so far is answered, and the connection still answers a ping."""
    await socket.send_to(text_data=json.dumps({"type": "ping"}))
    while True:
        message = await socket.receive_output(timeout=10)
        assert message["type"] == "websocket.send", f"the connection closed: {message}"
        answers.append(json.loads(message["text"]))
        if answers[-1]["type"] == "pong":
            return


async def _one_connection(table: dict, batch: list) -> None:
    if "game" not in table:
        table["game"], table["people"], _ = await database_sync_to_async(seated_table)()
    game, people = table["game"], table["people"]
    socket, connected, _ = await connect(game, people[0], after=0)
    assert connected
    answers: list[dict] = []
    last_command = None
    for frame in batch:
        if frame is LEGAL:  # read from the game once the frames before it are handled
            await _answered(socket, answers)
            frame = last_command = await database_sync_to_async(_legal_command)(game.pk, people)
        elif frame is AGAIN:
            frame = last_command
        if not frame:
            continue  # the test client cannot send an empty frame
        if isinstance(frame, bytes):
            await socket.send_to(bytes_data=frame)
        else:
            await socket.send_to(text_data=frame)
    await _answered(socket, answers)
    await socket.disconnect()
    left = await database_sync_to_async(lambda: SeatConnection.objects.filter(seat__game=game).count())()
    assert left == 0, "the disconnect cleanup did not run"
    failed = [answer for answer in answers if answer.get("code") == "server_error"]
    assert not failed, f"frames were answered with a server error: {failed}"


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=HOSTILE_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(batch=frames)
@example(batch=[LEGAL, AGAIN])  # a retry with nothing new since: its ack was once followed by a server_error
def test_no_frame_kills_the_connection_and_its_cleanup_always_runs(batch, settings, table):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST = 1000.0, 1000
    note(repr(batch)[:2000])
    async_to_sync(_one_connection)(table, batch)


@pytest.mark.django_db(transaction=True)
def test_deep_json_under_the_frame_limit_gets_an_error_frame_not_a_dead_consumer(settings, table):
    settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST = 1000.0, 1000
    deep = '{"type": "play", "card": ' + "[" * 2000 + "]" * 2000 + "}"
    async_to_sync(_one_connection)(table, ["[" * 2040 + "]" * 2040, deep])
