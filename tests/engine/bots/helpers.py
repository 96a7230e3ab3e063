"""Helpers for bot tests: rule configurations and driving a game with bots."""

from __future__ import annotations

from typing import Any

from engine import Game, Rules

# every option at least once, for every table size
RULE_SETS: list[dict[str, Any]] = [
    {"players": 4},
    {"players": 3},
    {"players": 5},
    {"players": 3, "leftover": "kitty"},
    {"players": 5, "leftover": "kitty", "jack_of_diamonds": True},
    {"players": 3, "removed_cards": ["2C"], "black_maria": True},
    {"players": 4, "passing": "left", "no_points_first_trick": False, "moon": "subtract_from_self"},
    {"players": 4, "first_lead": "left_of_dealer", "hearts_any_time": True, "moon": "shooter_chooses"},
    {"players": 5, "first_lead": "left_of_dealer", "queen_breaks_hearts": True, "passing": "off"},
    {"players": 4, "jack_of_diamonds": True, "black_maria": True, "moon": "off", "end_score": 50},
    {
        "players": 3,
        "leftover": "kitty",
        "first_lead": "left_of_dealer",
        "moon": "shooter_chooses",
        "exact_end_score_halves": True,
        "end_score": 50,
    },
    {"players": 4, "passing": "off", "queen_breaks_hearts": True, "jack_of_diamonds": True},
]


def rules_id(d: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in d.items())


def apply(game: Game, seat: int, cmd: dict[str, Any]) -> None:
    """Apply a bot's command through the validated path (IllegalMove fails the test)."""
    t = cmd["type"]
    if t == "pass":
        game.pass_cards(seat, cmd["cards"])
    elif t == "play":
        game.play(seat, cmd["card"])
    elif t == "moon_choice":
        game.choose_moon(seat, cmd["choice"])
    else:  # pragma: no cover
        raise AssertionError(f"unknown command {cmd!r}")


def step(game: Game, bots: list[Any]) -> int:
    """One decision: the first seat awaited decides from its view; returns the seat."""
    seat = game.to_act[0]
    cmd = bots[seat].decide(game.view(seat))
    apply(game, seat, cmd)
    return seat


def play_until(game: Game, bots: list[Any], hands: int) -> int:
    """Play with ``bots`` until ``hands`` hands are scored or the game ends; returns decisions."""
    k = 0
    while game.phase != "game_over" and len(game.hand_scores) < hands:
        step(game, bots)
        k += 1
    return k


def rules(d: dict[str, Any]) -> Rules:
    return Rules.from_dict(d)
