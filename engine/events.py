"""Events: frozen facts the engine emits, with a stable, versioned dict form.

Every event has a class-level ``type`` and ``version``; ``to_dict()`` gives
``{"type": ..., "v": ..., **fields}`` with cards as strings ("QS"), and
``event_from_dict`` is its inverse.

>>> from engine.cards import Card
>>> e = CardPlayed(seat=2, card=Card.parse("QS"))
>>> e.to_dict()
{'type': 'CardPlayed', 'v': 1, 'seat': 2, 'card': 'QS'}
>>> event_from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import _PARSE, NAMES, Card
from .rules import Rules

Cards = tuple[Card, ...]


_GET = _PARSE.__getitem__


def _cards(xs: Iterable[str]) -> Cards:
    try:
        return tuple(map(_GET, xs))
    except (KeyError, TypeError):
        return tuple(Card.parse(x) for x in xs)


def _names(cs: Iterable[int]) -> list[str]:
    return list(map(NAMES.__getitem__, cs))


class Event:
    """Base class of all events."""

    type: ClassVar[str]
    version: ClassVar[int] = 1

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The game's first event: the rules in force, the player names and the seed.

    The seed (None when dealing used OS randomness) is secret: redaction drops it.
    """

    type: ClassVar[str] = "GameStarted"
    rules: Rules
    players: tuple[str, ...]
    seed: int | str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "v": self.version,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameStarted:
        return cls(Rules.from_dict(d["rules"]), tuple(d["players"]), d.get("seed"))


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """A hand was dealt: each seat's cards (secret) and the kitty (secret until taken)."""

    type: ClassVar[str] = "HandDealt"
    hand_number: int
    dealer: int
    pass_direction: str
    hands: tuple[Cards, ...]
    kitty: Cards = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "v": self.version,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "pass_direction": self.pass_direction,
            "hands": [_names(h) for h in self.hands],
            "kitty": _names(self.kitty),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HandDealt:
        return cls(
            d["hand_number"],
            d["dealer"],
            d["pass_direction"],
            tuple(_cards(h) for h in d["hands"]),
            _cards(d.get("kitty", ())),
        )


@dataclass(frozen=True, slots=True)
class CardsPassed(Event):
    """A seat chose the three cards it passes (secret until the game is over)."""

    type: ClassVar[str] = "CardsPassed"
    seat: int
    cards: Cards

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "v": self.version, "seat": self.seat, "cards": _names(self.cards)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CardsPassed:
        return cls(d["seat"], _cards(d["cards"]))


@dataclass(frozen=True, slots=True)
class PassCompleted(Event):
    """Everybody passed; ``received[seat] = (from_seat, cards)`` is what each seat got."""

    type: ClassVar[str] = "PassCompleted"
    direction: str
    received: tuple[tuple[int, Cards], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "v": self.version,
            "direction": self.direction,
            "received": [{"from": f, "cards": _names(cs)} for f, cs in self.received],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PassCompleted:
        return cls(
            d["direction"],
            tuple((r["from"], _cards(r["cards"])) for r in d["received"]),
        )


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    type: ClassVar[str] = "CardPlayed"
    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": "CardPlayed", "v": 1, "seat": self.seat, "card": NAMES[self.card]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CardPlayed:
        c = d["card"]
        try:
            return cls(d["seat"], _PARSE[c])
        except (KeyError, TypeError):
            return cls(d["seat"], Card.parse(c))


@dataclass(frozen=True, slots=True)
class TrickTaken(Event):
    """A trick was completed.  ``trick_number`` counts from 1; ``cards`` are in play order
    starting with ``leader``; ``points`` include the kitty's, which the first trick's
    winner takes (``kitty``, revealed here)."""

    type: ClassVar[str] = "TrickTaken"
    trick_number: int
    leader: int
    winner: int
    cards: Cards
    points: int
    kitty: Cards = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "TrickTaken",
            "v": 1,
            "trick_number": self.trick_number,
            "leader": self.leader,
            "winner": self.winner,
            "cards": _names(self.cards),
            "points": self.points,
            "kitty": _names(self.kitty),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrickTaken:
        return cls(
            d["trick_number"],
            d["leader"],
            d["winner"],
            _cards(d["cards"]),
            d["points"],
            _cards(d.get("kitty", ())),
        )


@dataclass(frozen=True, slots=True)
class MoonChoiceRequested(Event):
    """Someone shot the moon under "shooter_chooses": the game waits for MoonChosen."""

    type: ClassVar[str] = "MoonChoiceRequested"
    hand_number: int
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "v": self.version, "hand_number": self.hand_number, "seat": self.seat}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoonChoiceRequested:
        return cls(d["hand_number"], d["seat"])


@dataclass(frozen=True, slots=True)
class MoonChosen(Event):
    """The shooter chose "add_to_others" or "subtract_from_self"."""

    type: ClassVar[str] = "MoonChosen"
    seat: int
    choice: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "v": self.version, "seat": self.seat, "choice": self.choice}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoonChosen:
        return cls(d["seat"], d["choice"])


@dataclass(frozen=True, slots=True)
class HandScored(Event):
    """A hand's result.  ``points`` per seat (moon applied), ``totals`` after it (resets
    applied), ``shooter`` (None if nobody shot the moon), ``moon`` the moon result applied
    ("add_to_others" / "subtract_from_self", None without a shooter), ``resets`` the
    seats whose total landed exactly on the end score and was halved."""

    type: ClassVar[str] = "HandScored"
    hand_number: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    shooter: int | None = None
    moon: str | None = None
    resets: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "v": self.version,
            "hand_number": self.hand_number,
            "points": list(self.points),
            "totals": list(self.totals),
            "shooter": self.shooter,
            "moon": self.moon,
            "resets": list(self.resets),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HandScored:
        return cls(
            d["hand_number"],
            tuple(d["points"]),
            tuple(d["totals"]),
            d.get("shooter"),
            d.get("moon"),
            tuple(d.get("resets", ())),
        )


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    type: ClassVar[str] = "GameEnded"
    totals: tuple[int, ...]
    winner: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "v": self.version, "totals": list(self.totals), "winner": self.winner}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameEnded:
        return cls(tuple(d["totals"]), d["winner"])


EVENT_TYPES: dict[str, type[Event]] = {
    c.type: c
    for c in (
        GameStarted,
        HandDealt,
        CardsPassed,
        PassCompleted,
        CardPlayed,
        TrickTaken,
        MoonChoiceRequested,
        MoonChosen,
        HandScored,
        GameEnded,
    )
}

_CP_FROM = CardPlayed.from_dict


def event_from_dict(d: dict[str, Any]) -> Event:
    """Rebuild an event from its ``to_dict()`` form.  Raises ValueError if unknown."""
    t = d.get("type")
    if t == "CardPlayed" and d.get("v") == 1:
        return _CP_FROM(d)
    cls = EVENT_TYPES.get(t)  # type: ignore[arg-type]  # a missing or odd type finds no class: ValueError below
    if cls is None:
        raise ValueError(f"unknown event type: {t!r}")
    v = d.get("v", cls.version)
    if v != cls.version:
        raise ValueError(f"{t} version {v} is not supported (this engine has {cls.version})")
    try:
        return cls.from_dict(d)
    except (KeyError, TypeError) as e:
        raise ValueError(f"malformed {t} event: {e}") from None
