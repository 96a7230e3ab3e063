"""The table's rules: every option of docs/rules.md as a field of a frozen dataclass.

>>> r = Rules(players=5)
>>> r.removed_cards, r.hand_size, r.kitty_size
(('2D', '2C'), 10, 0)
>>> Rules.from_dict(r.to_dict()) == r
True
>>> Rules(players=3, leftover="kitty").kitty_size
1
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .cards import (
    ACE_SPADES,
    HEARTS,
    JACK_DIAMONDS,
    KING_SPADES,
    NAMES,
    QUEEN_SPADES,
    Card,
)

LEFTOVER = ("remove", "kitty")
PASS_MODES = ("cycle", "left", "off")
FIRST_LEAD = ("lowest_club", "left_of_dealer")
MOON = ("add_to_others", "subtract_from_self", "shooter_chooses", "off")
MOON_CHOICES = ("add_to_others", "subtract_from_self")
# The options that take one of a few words, and those words (forms and pages list them from here).
OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "leftover": LEFTOVER,
    "passing": PASS_MODES,
    "first_lead": FIRST_LEAD,
    "moon": MOON,
}

DEFAULT_REMOVED = {3: ("2D",), 4: (), 5: ("2D", "2C")}

# Cards that score can never be removed: a hand must always carry its 26 points.
_UNREMOVABLE = HEARTS | 1 << QUEEN_SPADES | 1 << KING_SPADES | 1 << ACE_SPADES | 1 << JACK_DIAMONDS


@dataclass(frozen=True)
class Rules:
    """Rules in force at a table; defaults and their meaning: docs/rules.md.

    players: 3, 4 or 5.
    leftover: "remove" (take ``removed_cards`` out of the deck) or "kitty" (deal the
        odd cards face down; the first trick's winner takes them and their points).
    removed_cards: with "remove", the cards taken out; ``None`` means the docs/rules.md
        default (3p: 2D; 5p: 2D and 2C).  Exactly ``52 % players`` cards, no point card.
    passing: "cycle" (4p left/right/across/none, 3p and 5p left/right/none),
        "left" (always left) or "off".
    first_lead: "lowest_club" (the 2C, or the lowest club in play when 2C is
        removed or in the kitty, leads the first trick) or "left_of_dealer" (old rules:
        the player left of the dealer leads any card, within the hearts and
        first-trick rules).
    no_points_first_trick: no heart or QS on the first trick unless nothing else.
    hearts_any_time: hearts may be led before they are broken.
    queen_breaks_hearts: playing QS breaks hearts.
    jack_of_diamonds: whoever takes JD scores -10 (also when someone shoots the moon).
    black_maria: KS scores 10 and AS 7 on top of QS 13 (counted on top of the moon).
    moon: "add_to_others" (shooter 0, others +26), "subtract_from_self" (shooter -26),
        "shooter_chooses" (the shooter picks one of those two) or "off".
    end_score: the game ends after the hand in which someone reaches it (100; 50 short).
    exact_end_score_halves: a total landing exactly on end_score drops to half of it.
    """

    players: int = 4
    leftover: str = "remove"
    removed_cards: tuple[str, ...] | None = None
    passing: str = "cycle"
    first_lead: str = "lowest_club"
    no_points_first_trick: bool = True
    hearts_any_time: bool = False
    queen_breaks_hearts: bool = False
    jack_of_diamonds: bool = False
    black_maria: bool = False
    moon: str = "add_to_others"
    end_score: int = 100
    exact_end_score_halves: bool = False

    def __post_init__(self) -> None:
        if type(self.players) is not int or self.players not in (3, 4, 5):
            raise ValueError("players must be 3, 4 or 5")
        for name, allowed in OPTION_VALUES.items():
            _choice(name, getattr(self, name), allowed)
        for name in (
            "no_points_first_trick",
            "hearts_any_time",
            "queen_breaks_hearts",
            "jack_of_diamonds",
            "black_maria",
            "exact_end_score_halves",
        ):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} must be true or false")
        if type(self.end_score) is not int or not 1 <= self.end_score <= 10_000:
            raise ValueError("end_score must be a whole number from 1 to 10000")
        if self.hearts_any_time and self.queen_breaks_hearts:
            raise ValueError("queen_breaks_hearts has no meaning when hearts may be led at any time")
        odd = 52 % self.players
        if self.leftover == "kitty":
            if self.removed_cards:
                raise ValueError("with a kitty no cards are removed")
            removed: tuple[str, ...] = ()
        elif self.removed_cards is None:
            removed = DEFAULT_REMOVED[self.players]
        else:
            if isinstance(self.removed_cards, str):
                raise ValueError("removed_cards must be a list of cards")
            try:
                cards = [Card.parse(c) for c in self.removed_cards]
            except ValueError as e:
                raise ValueError(f"removed_cards: {e}") from None
            if len(set(cards)) != len(cards):
                raise ValueError("removed_cards lists a card twice")
            if len(cards) != odd:
                raise ValueError(f"with {self.players} players exactly {odd} card(s) must be removed")
            for c in cards:
                if _UNREMOVABLE >> c & 1:
                    raise ValueError(f"{c} scores points and cannot be removed")
            removed = tuple(NAMES[c] for c in cards)
        object.__setattr__(self, "removed_cards", removed)

    @property
    def hand_size(self) -> int:
        return 52 // self.players

    @property
    def kitty_size(self) -> int:
        return 52 % self.players if self.leftover == "kitty" else 0

    @property
    def removed_mask(self) -> int:
        m = 0
        for c in self.removed_cards or ():
            m |= 1 << Card.parse(c)
        return m

    @property
    def pass_cycle(self) -> tuple[str, ...]:
        """Pass directions by hand, repeating: hand k uses ``cycle[(k - 1) % len]``."""
        if self.passing == "off":
            return ("none",)
        if self.passing == "left":
            return ("left",)
        if self.players == 4:
            return ("left", "right", "across", "none")
        return ("left", "right", "none")

    def pass_direction(self, hand_number: int) -> str:
        cycle = self.pass_cycle
        return cycle[(hand_number - 1) % len(cycle)]

    def to_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in _FIELD_NAMES}
        d["removed_cards"] = list(self.removed_cards or ())
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rules:
        """Inverse of to_dict; missing keys take their defaults, unknown keys are refused."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rule(s): {', '.join(sorted(unknown))}")
        kw = dict(d)
        if kw.get("removed_cards") is not None:
            kw["removed_cards"] = tuple(kw["removed_cards"])
        return cls(**kw)


_FIELD_NAMES = tuple(f.name for f in fields(Rules))


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
