"""Who may see what of a game: the one rule every door asks (REST, WebSocket, exports, the
admin, the tournament endpoints).

A viewer is whoever asks: anonymous, a guest, a signed-in member, the player holding a seat
*now*, a former occupant, a player at another table of the same duplicate round, staff.
:func:`sight` turns (game, user) into a :class:`Sight`; :func:`visible_event` and
:meth:`Sight.view` apply it to events and engine states (through ``engine.redact`` and
``engine.Game.view``, which decide card by card).

- While a game is live, a viewer sees its own seat's cards and nothing of anyone else's:
  not the hands, not a pass before everyone has passed, not the kitty before it is taken,
  never the shuffle seed, the deal salt or a planned deal. Staff are no exception: the
  admin shows them a live game as a spectator sees it.
- Once the game is over everything is shown (the salt too, so anyone can check the deals),
  except for a *sealed* game: one whose deals other tables of a duplicate round are still
  playing. A sealed game can be watched only by the players sitting at it (each as their
  seat) and staff, and its hands stay hidden until the whole round is over.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import engine
from tournaments.games.eventstore import event_dict, is_engine_event
from tournaments.models import Game, GameEvent, GameSeat, Table


class ViewerKind(enum.StrEnum):
    """Who is asking, as the who-sees-what table of docs/reliability.md names them."""

    ANONYMOUS = "anonymous"
    MEMBER = "member"  # signed in, not seated here
    GUEST = "guest"
    SEATED = "seated"
    STAFF = "staff"


@dataclass(frozen=True)
class Sight:
    """What one viewer may know of one game now.

    ``seat``: the seat the viewer holds now (its own cards are shown). ``everything``: every
    hand, pass and the salt (the game is over and not sealed). ``may_watch``: the play at all
    (False for anyone outside a sealed game but staff).
    """

    kind: ViewerKind
    seat: int | None
    everything: bool
    may_watch: bool

    def view(self, state) -> dict:
        """The engine state (a ``Game`` or a replay ``Position``) as this viewer may see it."""
        return state.view(self.seat)

    def views_of_every_seat(self, state, players: int) -> list[dict] | None:
        """Every seat's view, once everything may be shown; else None."""
        return [state.view(seat) for seat in range(players)] if self.everything else None


def sight(game: Game, user, seats: list[GameSeat] | None = None) -> Sight:
    """The viewer ``user`` (anonymous: None or an AnonymousUser) of ``game`` now.

    ``seats``: the game's seats with their players, if the caller holds them already.
    """
    signed_in = user is not None and user.is_authenticated
    seat = seat_of_user(game, user, seats) if signed_in else None
    if seat is not None:
        kind = ViewerKind.SEATED
    elif not signed_in:
        kind = ViewerKind.ANONYMOUS
    elif user.is_staff and not (game.sealed and holds_seat_in_round(user, round_of(game))):
        kind = ViewerKind.STAFF
    elif getattr(getattr(user, "player", None), "is_guest", False):
        kind = ViewerKind.GUEST
    else:
        kind = ViewerKind.MEMBER
    return sight_of_seat(game, seat, kind)


def sight_of_seat(game: Game, seat: int | None, kind: ViewerKind) -> Sight:
    """The sight of a viewer already placed: at ``seat`` (None: not seated) and of ``kind``."""
    may_watch = not game.sealed or seat is not None or kind == ViewerKind.STAFF
    return Sight(kind=kind, seat=seat, everything=game.is_over and not game.sealed, may_watch=may_watch)


def round_of(game: Game) -> int | None:
    """The id of the tournament round ``game`` is a table of, or None (a casual game)."""
    return Table.objects.filter(game=game).values_list("round_id", flat=True).first()


def holds_seat_in_round(user, round_id: int | None) -> bool:
    """Whether ``user`` holds a seat at a table of the round (any table, finished or not): for
    that round's sealed tables such a staff member is a player like any other, not staff."""
    if round_id is None or user is None or not user.is_authenticated:
        return False
    return GameSeat.objects.filter(game__competition_table__round_id=round_id, player__user_id=user.pk).exists()


def sees_sealed_results(user, round_id: int | None) -> bool:
    """Whether ``user`` sees the results of the round's sealed tables before the round is over:
    staff who play at none of its tables."""
    signed_in = user is not None and user.is_authenticated
    return bool(signed_in and user.is_staff) and not holds_seat_in_round(user, round_id)


def seat_of_user(game: Game, user, seats: list[GameSeat] | None = None) -> int | None:
    """The seat ``user`` holds at ``game`` now, or None. A CPU's seat is nobody's."""
    if user is None or not user.is_authenticated:
        return None
    if seats is None:
        return game.seats.filter(player__user_id=user.pk).values_list("seat", flat=True).first()
    return next(
        (
            s.seat
            for s in seats
            if s.player is not None and s.player.user_id is not None and s.player.user_id == user.pk
        ),
        None,
    )


def seat_of_player(seats, player_id: int | None) -> int | None:
    """The seat ``player_id`` holds in a seating (``PlayersSeated``'s list or seat rows), or None."""
    if player_id is None:
        return None
    for entry in seats:
        holder = entry["player_id"] if isinstance(entry, dict) else entry.player_id
        if holder == player_id:
            return entry["seat"] if isinstance(entry, dict) else entry.seat
    return None


SEATING_EVENTS = ("PlayersSeated", "SeatReassigned")
"""The events that say who sits where: the seat a viewer holds at an event comes from them."""


def seat_after_event(event_type: str, payload: dict, seat: int | None, player_id: int | None) -> int | None:
    """The seat ``player_id`` holds after an event of the log, given ``seat``, the one held before it."""
    if event_type == "PlayersSeated":
        return seat_of_player(payload["seats"], player_id)
    if event_type == "SeatReassigned":
        if player_id is not None and payload["player_id"] == player_id:
            return payload["seat"]
        if seat == payload["seat"]:
            return None
    return seat


def seat_at(game_id: int, player_id: int | None, seq: int) -> int | None:
    """The seat ``player_id`` held once the game's log was at ``seq``, from its seating events."""
    if seq <= 0 or player_id is None:
        return None  # nobody sits before the first event, and only a player holds a seat
    seat = None
    seating = GameEvent.objects.filter(game_id=game_id, seq__lte=seq, type__in=SEATING_EVENTS).order_by("seq")
    for event_type, payload in seating.values_list("type", "payload"):
        seat = seat_after_event(event_type, payload, seat, player_id)
    return seat


HIDDEN_TABLE_FIELDS = {"DealSaltRevealed": ("salt",)}
"""Table events' fields shown only once everything may be shown (the salt of a sealed game
would let a player at another table test guesses of the shared deal against its commitments)."""


def same_for_everyone(row: GameEvent) -> bool:
    """Whether every viewer sees this event whole, now and later (its visible form may be shared)."""
    return row.type not in engine.VIEWER_DEPENDENT_EVENTS and row.type not in HIDDEN_TABLE_FIELDS


def visible_payload(row: GameEvent, sight: Sight) -> dict:
    """The event's fields that this viewer may see."""
    full = event_dict(row)
    if is_engine_event(row.type):
        shown = engine.redact(full, sight.seat, sight.everything)
    else:
        shown = full
        for name in HIDDEN_TABLE_FIELDS.get(row.type, ()):
            if not sight.everything:
                shown = {**shown, name: None}
    # redact's None (nothing to see) is for no event today
    return {k: v for k, v in shown.items() if k not in ("type", "v")}  # type: ignore[union-attr]


def visible_event(row: GameEvent, sight: Sight) -> dict:
    """One event as this viewer receives it over REST, the WebSocket or an export."""
    return {
        "seq": row.seq,
        "type": row.type,
        "v": row.version,
        "at": row.recorded_at.isoformat(),
        "cause": row.cause,
        "payload": visible_payload(row, sight),
    }


def seats_held_through(game_id: int, player_id: int | None, rows: list[GameEvent]) -> list[int | None]:
    """The seat ``player_id`` held at each of ``rows`` (consecutive events of the game's log),
    as its seating events say: a newcomer the director seated held no seat before the swap."""
    seat = seat_at(game_id, player_id, rows[0].seq - 1) if rows else None
    held = []
    for row in rows:
        seat = seat_after_event(row.type, row.payload, seat, player_id)
        held.append(seat)
    return held


def sight_at(game: Game, sight: Sight, seat: int | None) -> Sight:
    """``sight`` for an earlier moment at which the viewer held ``seat`` (their own now, or none)."""
    if seat == sight.seat:
        return sight
    kind = ViewerKind.SEATED if seat is not None else ViewerKind.MEMBER
    return Sight(kind=kind, seat=seat, everything=sight.everything, may_watch=sight.may_watch)


def visible_events(game: Game, sight: Sight, player_id: int | None, rows: list[GameEvent]) -> list[dict]:
    """``rows`` as this viewer may see them: each redacted for the seat the viewer held at it
    (every hand once everything may be shown), never for the seat held now."""
    if sight.everything:
        return [visible_event(row, sight) for row in rows]
    held = seats_held_through(game.pk, player_id, rows)
    return [visible_event(row, sight_at(game, sight, seat)) for row, seat in zip(rows, held, strict=True)]
