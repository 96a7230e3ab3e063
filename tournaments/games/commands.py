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
    if data is None:  # an empty or JSON null body: the error is_valid gives, not the field's
        raise serializers.ValidationError({"non_field_errors": ["No data provided"]}, code="null")
    values = dict(_COMMAND.run_validation(data))
    return values, values.pop("command_id"), values.pop("expected_seq")
