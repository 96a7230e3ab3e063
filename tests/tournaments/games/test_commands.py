"""The one command parser of both doors: its fast path for a live play gives exactly what the
serializer gives, and leaves every frame it does not take (and so every error) to it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from tournaments.games import commands


def _by_serializer(data):
    """What parse_command answers when the serializer decides (its result, or its errors)."""
    try:
        values = dict(commands.CommandSerializer().run_validation(data))
    except serializers.ValidationError as refused:
        return "refused", refused.detail
    return values, values.pop("command_id"), values.pop("expected_seq")


def _answer(data):
    try:
        return commands.parse_command(data)
    except serializers.ValidationError as refused:
        return "refused", refused.detail


EDGE_STRINGS = ["QS", "10H", "", " QS", "QS\n", "Q\x00S", "QSQSQ", "ＱS", "Q\ud800", "x" * 64, "y" * 65]
strings = st.one_of(st.sampled_from(EDGE_STRINGS), st.text(max_size=70))
values = st.one_of(
    strings,
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2**70),
    st.floats(allow_nan=False),
    st.lists(strings, max_size=4),
)
# Mostly plays, the shape the fast path takes, with every field at times of another type, and
# any other keys (or type) now and then.
plays = st.fixed_dictionaries(
    {"type": st.just("play")},
    optional={"card": values, "command_id": values, "expected_seq": values},
)
frames = st.one_of(
    plays,
    st.tuples(plays, st.dictionaries(st.sampled_from(["type", "cards", "choice", "extra"]), values, min_size=1)).map(
        lambda parts: {**parts[0], **parts[1]}
    ),
)


@settings(max_examples=600, deadline=None)
@given(frame=frames)
def test_the_fast_path_answers_as_the_serializer_does(frame):
    assert _answer(frame) == _by_serializer(frame)


@pytest.mark.parametrize("field", ["card", "command_id"])
@pytest.mark.parametrize("value", EDGE_STRINGS)
def test_every_edge_of_a_string_field_is_answered_as_the_serializer_does(field, value):
    frame = {"type": "play", "card": "QS", field: value}
    assert _answer(frame) == _by_serializer(frame)


SEQ_EDGES = [0, 7, -1, 2**63 - 1, 2**63, pytest.param(10**5000, id="5001 digits"), True, 3.0, "4", None]


@pytest.mark.parametrize("expected_seq", SEQ_EDGES)
def test_every_edge_of_expected_seq_is_answered_as_the_serializer_does(expected_seq):
    frame = {"type": "play", "card": "QS", "expected_seq": expected_seq}
    assert _answer(frame) == _by_serializer(frame)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "play", "card": "QS"},
        {"type": "play", "card": "2C", "expected_seq": 12},
        {"type": "play", "card": "TH", "expected_seq": None, "command_id": "c-1"},
    ],
)
def test_a_live_clients_play_takes_the_fast_path(frame, monkeypatch):
    monkeypatch.setattr(commands, "_COMMAND", None)  # the serializer is not consulted
    command, command_id, expected_seq = commands.parse_command(frame)
    assert command == {"type": "play", "card": frame["card"]}
    assert (command_id, expected_seq) == (frame.get("command_id", ""), frame.get("expected_seq"))
