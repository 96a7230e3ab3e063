"""The tournaments app's models: ``core`` (clubs, players, games, event logs) and
``competitions`` (leagues' seasons, tournaments, rounds and tables)."""

from tournaments.models.competitions import (
    Registration,
    Round,
    Ruling,
    Season,
    Table,
    TableResult,
    Tournament,
)
from tournaments.models.core import (
    Club,
    Game,
    GameEvent,
    GameSeat,
    League,
    Player,
    RoleEnded,
    SeatConnection,
    SeatInvitation,
    ServerHeartbeat,
)

__all__ = [
    "Club",
    "Game",
    "GameEvent",
    "GameSeat",
    "League",
    "Player",
    "Registration",
    "RoleEnded",
    "Round",
    "Ruling",
    "Season",
    "SeatConnection",
    "SeatInvitation",
    "ServerHeartbeat",
    "Table",
    "TableResult",
    "Tournament",
]
