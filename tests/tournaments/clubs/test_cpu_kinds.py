"""The CPU kinds a player can be are the engine's bots, one list everywhere."""

from engine import bots
from tournaments.models import Player


def test_the_player_model_offers_exactly_the_engine_s_bots():
    offered = [kind.value for kind in Player.BotKind if kind.value]
    assert offered == list(bots.KINDS)
    for kind in offered:
        assert bots.make(kind, seed=1).decide  # each one can be built and asked for a move
