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
  admin shows them a live game as a spectator sees it. A seat's pass (the state's
  ``passed``: cards now in another hand) is shown only to a viewer who held the seat when it
  was made: a newcomer the director seats afterwards sees their hand, not that pass.
- Once the game is over everything is shown (the salt too, so anyone can check the deals),
  except for a *sealed* game: one whose deals other tables of a duplicate round are still
  playing. A sealed game can be watched only by the players sitting at it (each as their
  seat) and staff, and its hands stay hidden until the whole round is over.
"""

from __future__ import annotations

import bisect
import enum
from dataclasses import dataclass, replace
from datetime import datetime

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
    (False for anyone outside a sealed game but staff). ``own_pass``: whether the seat's pass of
    the hand in play, if it has passed, was the viewer's (they held the seat when it was made:
    :func:`pass_shown`); if not, the state's ``passed`` is null. A sight made without knowing
    (:func:`sight_of_seat`, for events) hides it.
    """

    kind: ViewerKind
    seat: int | None
    everything: bool
    may_watch: bool
    own_pass: bool = False

    def view(self, state) -> dict:
        """The engine state (a ``Game`` or a replay ``Position``) as this viewer may see it."""
        return without_others_pass(state.view(self.seat), self.own_pass or self.everything)

    def views_of_every_seat(self, state, players: int) -> list[dict] | None:
        """Every seat's view, once everything may be shown; else None."""
        return [state.view(seat) for seat in range(players)] if self.everything else None


def sight(game: Game, user, seats: list[GameSeat] | None = None) -> Sight:
    """The viewer ``user`` (anonymous: None or an AnonymousUser) of ``game`` now.

    ``seats``: the game's seats with their players, if the caller holds them already.
    """
    signed_in = user is not None and user.is_authenticated
    held = _seat_row_of_user(game, user, seats) if signed_in else None
    seat = held[0] if held is not None else None
    if seat is not None:
        kind = ViewerKind.SEATED
    elif not signed_in:
        kind = ViewerKind.ANONYMOUS
    elif user.is_staff and not (game.sealed and has_sat_in_round(user, round_of(game))):
        kind = ViewerKind.STAFF
    elif getattr(getattr(user, "player", None), "is_guest", False):
        kind = ViewerKind.GUEST
    else:
        kind = ViewerKind.MEMBER
    placed = sight_of_seat(game, seat, kind)
    if held is None or placed.everything:
        return placed
    return replace(placed, own_pass=_own_pass_now(game, *held))


def sight_of_seat(game: Game, seat: int | None, kind: ViewerKind, own_pass: bool = False) -> Sight:
    """The sight of a viewer already placed: at ``seat`` (None: not seated) and of ``kind``;
    ``own_pass``: whether the seat's pass of the hand in play was theirs (:func:`pass_shown`)."""
    may_watch = not game.sealed or seat is not None or kind == ViewerKind.STAFF
    everything = game.is_over and not game.sealed
    return Sight(kind=kind, seat=seat, everything=everything, may_watch=may_watch, own_pass=own_pass or everything)


def round_of(game: Game) -> int | None:
    """The id of the tournament round ``game`` is a table of, or None (a casual game)."""
    return Table.objects.filter(game=game).values_list("round_id", flat=True).first()


def has_sat_in_round(user, round_id: int | None) -> bool:
    """Whether ``user`` holds, or has held, a seat at a table of the round (any table, finished
    or not; a director's swap may have moved them out, and may move them back): for that
    round's sealed tables such a staff member is a player like any other, not staff."""
    if round_id is None or user is None or not user.is_authenticated:
        return False
    if GameSeat.objects.filter(game__competition_table__round_id=round_id, player__user_id=user.pk).exists():
        return True
    player_id = getattr(getattr(user, "player", None), "pk", None)
    return player_id is not None and bool(_games_seated_by_the_log(player_id, round_id))


ROUND_START = "round start"
"""What :func:`first_seated_in_round` answers for a player dealt in when the round's game began."""


def first_seated_in_round(player_id: int, round_id: int) -> datetime | str | None:
    """When the player first held a seat at a table of the round: ``ROUND_START`` if dealt in
    when its game began (``PlayersSeated``), else the moment a correction first seated them
    (``SeatReassigned``), else None (never seated there)."""
    seatings = GameEvent.objects.filter(game__competition_table__round_id=round_id, type__in=SEATING_EVENTS)
    first = None
    for event_type, payload, recorded_at in seatings.values_list("type", "payload", "recorded_at"):
        if seat_after_event(event_type, payload, None, player_id) is None:
            continue
        if event_type == "PlayersSeated":
            return ROUND_START
        first = recorded_at if first is None else min(first, recorded_at)
    return first


def games_held_in_round(player_id: int, round_id: int) -> set[int]:
    """The games of the round at which the player holds, or has held, a seat."""
    held = GameSeat.objects.filter(game__competition_table__round_id=round_id, player_id=player_id)
    return set(held.values_list("game_id", flat=True)) | _games_seated_by_the_log(player_id, round_id)


def _games_seated_by_the_log(player_id: int, round_id: int) -> set[int]:
    seatings = GameEvent.objects.filter(game__competition_table__round_id=round_id, type__in=SEATING_EVENTS)
    return {
        game_id
        for game_id, event_type, payload in seatings.values_list("game_id", "type", "payload")
        if seat_after_event(event_type, payload, None, player_id) is not None
    }


def sealed_games_hidden_from(user) -> list[int]:
    """The sealed games of every round ``user`` sits (or sat) in, but the one they sit at now:
    the tables playing their deals, of which no door shows them anything, the admin's
    changelists included."""
    if user is None or not user.is_authenticated:
        return []
    sealed = Table.objects.filter(game__sealed=True).exclude(game__seats__player__user_id=user.pk)
    by_round: dict[int, list[int]] = {}
    for round_id, game_id in sealed.values_list("round_id", "game_id"):
        by_round.setdefault(round_id, []).append(game_id)
    return [game_id for round_id, games in by_round.items() if has_sat_in_round(user, round_id) for game_id in games]


def seat_of_user(game: Game, user, seats: list[GameSeat] | None = None) -> int | None:
    """The seat ``user`` holds at ``game`` now, or None. A CPU's seat is nobody's."""
    held = _seat_row_of_user(game, user, seats)
    return held[0] if held is not None else None


def _seat_row_of_user(game: Game, user, seats: list[GameSeat] | None = None):
    """(seat, player id, joined_at) of the seat ``user`` holds at ``game`` now, or None."""
    if user is None or not user.is_authenticated:
        return None
    if seats is None:
        return game.seats.filter(player__user_id=user.pk).values_list("seat", "player_id", "joined_at").first()
    return next(
        (
            (s.seat, s.player_id, s.joined_at)
            for s in seats
            if s.player is not None and s.player.user_id is not None and s.player.user_id == user.pk
        ),
        None,
    )


def _own_pass_now(game: Game, seat: int, player_id: int, joined_at) -> bool:
    """Whether ``player_id``, holding ``seat`` now, made the seat's latest pass. Without a query
    for a seat taken before the game started (``joined_at``), which is theirs since the first
    deal: a director's reassignment (``SeatReassigned``) seats its newcomer with the moment it
    was made. Otherwise (reassigned, or not known) as the log says."""
    if joined_at is not None and game.started_at is not None and joined_at <= game.started_at:
        return True
    _, passes = holding_at(game.pk, player_id, game.seq)
    return pass_shown(game, seat, passes)


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


PASS_EVENT = "CardsPassed"
"""A seat's pass: shown in the state (``passed``) only to whoever held the seat when it was made."""


def passes_after_event(event_type: str, payload: dict, seat: int | None, passes: frozenset[int]) -> frozenset[int]:
    """``passes`` (the seats whose latest pass a player made: they held the seat at it) after an
    event of the log at which that player held ``seat``."""
    if event_type != PASS_EVENT:
        return passes
    passer = payload["seat"]
    if passer == seat:
        return passes if passer in passes else passes | {passer}
    return passes - {passer} if passer in passes else passes


def passes_along(rows: list[GameEvent], held: list[int | None], passes: frozenset[int]) -> list[frozenset[int]]:
    """``passes`` after each of ``rows`` (consecutive events of the log), at each of which the
    player held the seat ``held`` lists."""
    along = []
    for row, seat in zip(rows, held, strict=True):
        if row.type == PASS_EVENT:
            passes = passes_after_event(row.type, row.payload, seat, passes)
        along.append(passes)
    return along


def pass_shown(game: Game, seat: int | None, passes: frozenset[int]) -> bool:
    """Whether a viewer holding ``seat`` is shown the seat's pass of the hand in play (the
    state's ``passed``), ``passes`` being the seats whose latest pass they made: if they made it,
    or once everything may be shown. A newcomer the director seated after the seat passed
    holds the cards it received, not the ones it gave away."""
    return seat is not None and (seat in passes or (game.is_over and not game.sealed))


def without_others_pass(view: dict, own_pass: bool) -> dict:
    """A seat's view (``Game.view``, ``seat_view``, ``Position.view``) with ``passed`` null unless
    the pass was the viewer's own (``own_pass``, from :func:`pass_shown`); before the cards
    change hands (``received`` null) the pass is left out of ``hand`` too, where it still lies:
    the hand before and after the exchange would tell it."""
    passed = view.get("passed")
    if not own_pass and passed is not None:
        view["passed"] = None
        if view.get("received") is None and view.get("hand"):
            view["hand"] = [card for card in view["hand"] if card not in passed]
    return view


def seat_view(state, seat: int | None, own_pass: bool) -> dict:
    """``state.seat_view(seat)`` as the viewer holding ``seat`` may see it (``own_pass``: see
    :func:`pass_shown`)."""
    return without_others_pass(state.seat_view(seat), own_pass)


def holdings(
    game_id: int, player_id: int | None, up_to: int | None = None
) -> list[tuple[int, int | None, frozenset[int]]]:
    """Each change of what ``player_id`` holds at the game, up to seq ``up_to`` (all: None), as
    (seq, the seat held from then on, the seats whose latest pass they made by then), from the
    log's seating events and passes: one query."""
    if player_id is None:
        return []  # only a player holds a seat
    seat: int | None = None
    passes: frozenset[int] = frozenset()
    logged = GameEvent.objects.filter(game_id=game_id, type__in=(*SEATING_EVENTS, PASS_EVENT))
    if up_to is not None:
        logged = logged.filter(seq__lte=up_to)
    changes = []
    for seq, event_type, payload in logged.order_by("seq").values_list("seq", "type", "payload"):
        seat = seat_after_event(event_type, payload, seat, player_id)
        passes = passes_after_event(event_type, payload, seat, passes)
        changes.append((seq, seat, passes))
    return changes


def held_at(changes: list[tuple[int, int | None, frozenset[int]]], seq: int) -> tuple[int | None, frozenset[int]]:
    """What :func:`holdings` says was held once the log was at ``seq``."""
    at = bisect.bisect_right(changes, seq, key=lambda change: change[0])
    return (changes[at - 1][1], changes[at - 1][2]) if at else (None, frozenset())


def holding_at(game_id: int, player_id: int | None, seq: int) -> tuple[int | None, frozenset[int]]:
    """The seat ``player_id`` held once the game's log was at ``seq``, and the seats whose latest
    pass they made by then (held the seat at it): one query."""
    if seq <= 0:
        return None, frozenset()  # nobody sits before the first event
    return held_at(holdings(game_id, player_id, up_to=seq), seq)


def seats_held_this_hand(game_id: int, player_id: int) -> set[int]:
    """The seats ``player_id`` has held at the game since its hand in play was dealt: they have
    seen those seats' cards of this hand (the hand dealt, the pass made), whoever holds them now."""
    deals = GameEvent.objects.filter(game_id=game_id, type="HandDealt")
    dealt = deals.order_by("-seq").values_list("seq", flat=True).first()
    if dealt is None:
        return set()
    changes = holdings(game_id, player_id)
    held = {held_at(changes, dealt)[0]} | {seat for seq, seat, _ in changes if seq > dealt}
    return {seat for seat in held if seat is not None}


HIDDEN_TABLE_FIELDS = {"DealSaltRevealed": ("salt",)}
"""Table events' fields shown only once everything may be shown (the salt of a sealed game
would let a player at another table test guesses of the shared deal against its commitments)."""


def same_for_everyone(row: GameEvent) -> bool:
    """Whether every viewer sees this event whole, now and later (its visible form may be shared)."""
    return row.type not in engine.VIEWER_DEPENDENT_EVENTS and row.type not in HIDDEN_TABLE_FIELDS


PASS_EXCHANGED = "PassCompleted"


def visible_payload(row: GameEvent, sight: Sight) -> dict:
    """The event's fields that this viewer may see: for the seat they hold at it, and the
    seat's own pass in ``PassCompleted`` only if it was theirs (``sight.own_pass``)."""
    full = event_dict(row)
    if is_engine_event(row.type):
        shown = engine.redact(full, sight.seat, sight.everything)
        if row.type == PASS_EXCHANGED and sight.seat is not None and not (sight.own_pass or sight.everything):
            shown["received"] = [  # type: ignore[index]
                {**entry, "cards": None} if entry["from"] == sight.seat else entry
                for entry in shown["received"]  # type: ignore[index]
            ]
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


def sight_at(game: Game, sight: Sight, seat: int | None, own_pass: bool | None = None) -> Sight:
    """``sight`` for an earlier moment at which the viewer held ``seat`` (their own now, or none).
    ``own_pass``: whether the seat's pass of the hand in play then was theirs (:func:`pass_shown`;
    a state of that moment needs it, its events do not); None: as now for the seat held now,
    else not."""
    if own_pass is None:
        own_pass = sight.own_pass if seat == sight.seat else False
    own_pass = own_pass or sight.everything
    if seat == sight.seat:
        return sight if own_pass == sight.own_pass else replace(sight, own_pass=own_pass)
    kind = ViewerKind.SEATED if seat is not None else ViewerKind.MEMBER
    return Sight(kind=kind, seat=seat, everything=sight.everything, may_watch=sight.may_watch, own_pass=own_pass)


def visible_events(game: Game, sight: Sight, player_id: int | None, rows: list[GameEvent]) -> list[dict]:
    """``rows`` as this viewer may see them: each redacted for the seat the viewer held at it
    (every hand once everything may be shown), never for the seat held now."""
    if sight.everything or not rows:
        return [visible_event(row, sight) for row in rows]
    seat, passes = holding_at(game.pk, player_id, rows[0].seq - 1)
    shown = []
    for row in rows:
        seat = seat_after_event(row.type, row.payload, seat, player_id)
        passes = passes_after_event(row.type, row.payload, seat, passes)
        shown.append(visible_event(row, sight_at(game, sight, seat, own_pass=pass_shown(game, seat, passes))))
    return shown
