"""Table events: facts about a game that are not card play (those are the engine's).

They share the engine events' shape (``type``, ``version``, ``to_dict``) and sit in the same
log, so a replay shows who sat where, which hands a CPU played, and the deal commitments.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class TableEvent:
    type: ClassVar[str]
    version: ClassVar[int] = 1

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "v": self.version, **asdict(self)}


@dataclass(frozen=True)
class PlayersSeated(TableEvent):
    """The table filled and the game started with these players in these seats."""

    type: ClassVar[str] = "PlayersSeated"
    seats: list  # [{"seat", "player_id", "name", "cpu"}]


@dataclass(frozen=True)
class SeatVacated(TableEvent):
    """A seated player left or lost connection; a CPU plays the seat from now on."""

    type: ClassVar[str] = "SeatVacated"
    seat: int
    reason: str  # "left" | "disconnected"


@dataclass(frozen=True)
class SeatReclaimed(TableEvent):
    """The player came back from the same device and plays the seat again."""

    type: ClassVar[str] = "SeatReclaimed"
    seat: int


@dataclass(frozen=True)
class SeatReassigned(TableEvent):
    """A director gave the seat to another player mid-game (a correction): from this event
    on the seat's cards are theirs to see and play."""

    type: ClassVar[str] = "SeatReassigned"
    seat: int
    player_id: int
    name: str


@dataclass(frozen=True)
class DealCommitted(TableEvent):
    """``sha256(salt + canonical JSON of the hand's deal)``, published before play."""

    type: ClassVar[str] = "DealCommitted"
    hand_number: int
    commitment: str


@dataclass(frozen=True)
class HandLimitReached(TableEvent):
    """The table's hand limit (a timed tournament round) was reached: the game stops here."""

    type: ClassVar[str] = "HandLimitReached"
    hands: int
    totals: list


@dataclass(frozen=True)
class DealSaltRevealed(TableEvent):
    """The game is over: with this salt anyone can check every DealCommitted."""

    type: ClassVar[str] = "DealSaltRevealed"
    salt: str


TABLE_EVENT_TYPES = {
    cls.type
    for cls in (
        PlayersSeated,
        SeatVacated,
        SeatReclaimed,
        SeatReassigned,
        DealCommitted,
        HandLimitReached,
        DealSaltRevealed,
    )
}
