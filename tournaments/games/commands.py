"""A seat's commands as clients send them, over REST and WebSocket alike: their types and the
one parser both doors use. Whether a command is legal is the engine's to say, not this module's."""

from __future__ import annotations

from enum import StrEnum

from rest_framework import serializers

from engine.rules import MOON_CHOICES


class CommandType(StrEnum):
    """What a seat can do: pass three cards, play a card, or choose how a moon shot scores."""

    PASS = "pass"
    PLAY = "play"
    MOON_CHOICE = "moon_choice"


COMMAND_TYPES = frozenset(CommandType)
# The field each type of command carries.
NEEDED_FIELD = {CommandType.PLAY: "card", CommandType.PASS: "cards", CommandType.MOON_CHOICE: "choice"}


class StrictCharField(serializers.CharField):
    """A string field that refuses numbers instead of turning them into strings."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class CommandSerializer(serializers.Serializer):
    """A command, the same over REST and WebSocket."""

    type = serializers.ChoiceField(choices=[kind.value for kind in CommandType])
    card = StrictCharField(max_length=4, required=False, help_text='e.g. "QS", "TH", "2C"')
    cards = serializers.ListField(child=StrictCharField(max_length=4), required=False, max_length=3, min_length=0)
    choice = serializers.ChoiceField(choices=list(MOON_CHOICES), required=False)
    command_id = StrictCharField(
        max_length=64,
        required=False,
        allow_blank=True,
        default="",
        help_text="a client id: a retry with the same id appends nothing",
    )
    expected_seq = serializers.IntegerField(required=False, allow_null=True, min_value=0, default=None)

    def validate(self, attrs):
        needed = NEEDED_FIELD[CommandType(attrs["type"])]
        if needed not in attrs:
            raise serializers.ValidationError({needed: f"A {attrs['type']} command needs '{needed}'."})
        return attrs


_COMMAND = CommandSerializer()


def parse_command(data) -> tuple[dict, str, int | None]:
    """A command body as ``(command, command_id, expected_seq)``, checked by one shared
    CommandSerializer: building a serializer deep-copies its fields, a cost on every live play.

    Raises ``serializers.ValidationError`` with the errors ``is_valid`` would give.
    """
    plain = _plain_play(data)
    if plain is not None:
        return plain
    if data is None:  # an empty or JSON null body: the error is_valid gives, not the field's
        raise serializers.ValidationError({"non_field_errors": ["No data provided"]}, code="null")
    values = dict(_COMMAND.run_validation(data))
    return values, values.pop("command_id"), values.pop("expected_seq")


_PLAY_KEYS = frozenset(("type", "card", "command_id", "expected_seq"))


def _plain_string(value, max_length: int, *, blank: bool) -> bool:
    """Whether ``value`` is a string StrictCharField would return unchanged (no trimming, no
    refusal): ASCII without NUL, no surrounding whitespace, short enough."""
    return (
        type(value) is str
        and len(value) <= max_length
        and (blank or bool(value))
        and value.isascii()
        and "\x00" not in value
        and value == value.strip()
    )


def _plain_play(data) -> tuple[dict, str, int | None] | None:
    """A play as live clients send it (``{"type": "play", "card": "QS", "expected_seq": 12}``),
    checked without the serializer: a tenth of the cost on the hot path. The very result
    ``run_validation`` gives, or None for anything else, which the serializer decides (so an
    error always comes from it). tests/tournaments/games/test_commands.py holds the two equal."""
    if type(data) is not dict or data.get("type") != "play" or not data.keys() <= _PLAY_KEYS:
        return None
    card, command_id, expected_seq = data.get("card"), data.get("command_id", ""), data.get("expected_seq")
    if not _plain_string(card, 4, blank=False) or not _plain_string(command_id, 64, blank=True):
        return None
    if expected_seq is not None and (type(expected_seq) is not int or not 0 <= expected_seq < 2**63):
        return None
    return {"type": "play", "card": card}, command_id, expected_seq
