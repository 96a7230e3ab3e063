"""Game services: create a table, join, leave, and run a command against a game's log.

Every write locks the game row, appends the engine's events in the same transaction and
notifies listeners only after commit (``transaction.on_commit``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import weakref
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from engine import bots
from hearts_league.api import DomainError
from tournaments.clubs.services import player_get_or_create_cpu
from tournaments.dispatch import notify, scheduler
from tournaments.games import eventstore, loop_db, queries, selectors, sql, visibility
from tournaments.games.commands import CommandType
from tournaments.games.events import (
    DealSaltRevealed,
    HandLimitReached,
    PlayersSeated,
    SeatReassigned,
    SeatReclaimed,
    SeatVacated,
)
from tournaments.games.feed import feed
from tournaments.games.turns import TurnPlan, plan_turn
from tournaments.models import Game, GameEvent, GameSeat, League, Player, SeatInvitation, Table

log = logging.getLogger(__name__)

TURN_TIMES = (None, 30, 60)
# What appending to a started game's log can change in its row; saving only these keeps the
# per-move UPDATE small (the rules, planned deals and salt are written once, at the start).
LOG_FIELDS = (
    "seq",
    "head_hash",
    "status",
    "finished_at",
    "final_totals",
    "winner_seat",
    "turn_key",
    "turn_deadline",
    "cpu_due_at",
)


@dataclass(frozen=True)
class SeatSpec:
    """How a seat is filled when a table is created.

    ``invite`` holds the seat for ``player_id`` until they accept; ``player`` seats them at once,
    which only the ranked queue and a director's tournament may do (they agreed by joining).
    """

    kind: str  # "me" | "open" | "cpu" | "invite" | "player"
    bot: str = ""
    player_id: int | None = None


@dataclass
class CommandResult:
    game: Game
    events: list[GameEvent] = field(default_factory=list)
    duplicate: bool = False  # a retried command_id: nothing new was appended


def device_token_hash(device_id: str) -> str:
    return hashlib.sha256(device_id.encode()).hexdigest() if device_id else ""


def lock_game(game_id: int) -> Game:
    """The game row, locked for the current transaction (404 ``game_not_found`` if missing)."""
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise DomainError("game_not_found", f"There is no game {game_id}.", status=404) from None


def _parse_rules(rules: dict | None, league: League | None) -> engine.Rules:
    merged = {**(league.default_rules if league else {}), **(rules or {})}
    try:
        return engine.Rules.from_dict(merged)
    except (TypeError, ValueError) as error:
        raise DomainError("invalid_rules", f"These rules are not valid: {error}") from None


# --- tables -----------------------------------------------------------------------------------


@transaction.atomic
def game_create(
    *,
    creator: Player,
    rules: dict | None = None,
    seats: list[SeatSpec] | None = None,
    ranked: bool = False,
    turn_seconds: int | None = None,
    league: League | None = None,
    device_id: str = "",
    deals: list | None = None,
    hand_limit: int | None = None,
    sealed: bool = False,
) -> Game:
    """Create a table; it starts as soon as every seat is filled.

    ``deals``: the hands to deal, in order (as ``engine.Game.new`` takes them), e.g. a
    tournament round's duplicate deals; later hands are dealt at random. ``hand_limit``: the
    game stops after that many hands (a timed club round; HandLimitReached), ties and all.
    ``sealed``: other tables play the same deals (``tournaments.games.visibility``).
    """
    parsed = _parse_rules(rules, league)
    if turn_seconds not in TURN_TIMES:
        raise DomainError("invalid_turn_time", "The turn time is unlimited, 30 or 60 seconds.")
    if ranked and creator.is_guest:
        raise DomainError("account_required", "Ranked games need a registered account.", status=403)
    n = parsed.players
    specs = seats if seats is not None else [SeatSpec("me")] + [SeatSpec("open")] * (n - 1)
    if len(specs) != n:
        raise DomainError("invalid_seats", f"A {n}-player table needs exactly {n} seats.")
    occupants = [_occupant(spec, creator, ranked) for spec in specs]
    invitees = {seat: _invitee(spec, creator, ranked) for seat, spec in enumerate(specs) if spec.kind == "invite"}
    humans = [p.pk for p in [*occupants, *invitees.values()] if p is not None and not p.is_cpu]
    if len(humans) != len(set(humans)):
        raise DomainError("invalid_seats", "A player can take only one seat at a table.")

    if hand_limit is not None and not 1 <= hand_limit <= 100:
        raise DomainError("invalid_hand_limit", "A hand limit is between 1 and 100 hands.")
    game = Game.objects.create(
        rules=parsed.to_dict(),
        ranked=ranked,
        turn_seconds=turn_seconds,
        hand_limit=hand_limit,
        sealed=sealed,
        league=league,
        created_by=creator,
    )
    now = timezone.now()
    GameSeat.objects.bulk_create(
        [
            GameSeat(
                game=game,
                seat=seat,
                player=player,
                joined_at=now if player else None,
                device_token_hash=device_token_hash(device_id) if player == creator else "",
            )
            for seat, player in enumerate(occupants)
        ]
    )
    if invitees:
        expires = timezone.now() + timedelta(seconds=settings.HEARTS_INVITATION_SECONDS)
        SeatInvitation.objects.bulk_create(
            [
                SeatInvitation(game=game, seat=seat, player=player, invited_by=creator, expires_at=expires)
                for seat, player in invitees.items()
            ]
        )
    if all(occupants):
        _start(game, deals=deals)
    return game


def _invitee(spec: SeatSpec, creator: Player, ranked: bool) -> Player:
    if ranked:
        raise DomainError("invalid_seats", "Ranked tables seat their players themselves: no invitations.")
    player = Player.objects.filter(pk=spec.player_id).first() if spec.player_id is not None else None
    if player is None or player.is_cpu:
        raise DomainError("invalid_seats", f"There is no player {spec.player_id} to invite.")
    if player.pk == creator.pk:
        raise DomainError("invalid_seats", "Take your own seat with 'me', not an invitation.")
    return player


def _occupant(spec: SeatSpec, creator: Player, ranked: bool) -> Player | None:
    if spec.kind in ("open", "invite"):
        return None
    if spec.kind == "me":
        return creator
    if spec.kind == "cpu":
        if spec.bot not in bots.KINDS:
            raise DomainError("invalid_seats", f"Unknown CPU kind {spec.bot!r}: random, rule or montecarlo.")
        return player_get_or_create_cpu(bot_kind=spec.bot)
    if spec.kind == "player":
        player = Player.objects.filter(pk=spec.player_id).first()  # type: ignore[misc]  # None: no player, refused
        if player is None:
            raise DomainError("invalid_seats", f"There is no player {spec.player_id}.")
        if ranked and player.is_guest:
            raise DomainError("account_required", "Ranked games need registered accounts.", status=403)
        return player
    raise DomainError("invalid_seats", f"Unknown seat kind {spec.kind!r}: me, open, cpu or invite.")


@transaction.atomic
def game_join(*, game_id: int, player: Player, seat: int | None = None, device_id: str = "") -> Game:
    """Take an open seat, or the seat you are invited to (which accepts the invitation), or,
    mid-game, take back your own seat from the same device."""
    game = lock_game(game_id)
    # of=self: PostgreSQL refuses FOR UPDATE on the nullable side of the (open seat) player join
    seats = list(game.seats.select_for_update(of=("self",)).select_related("player"))
    mine = next((s for s in seats if s.player_id == player.pk), None)
    if game.status == Game.Status.ACTIVE and mine is not None and mine.away:
        seat_reclaim(game, mine, device_id)
        return game
    if mine is not None:
        raise DomainError("already_seated", f"You already sit at seat {mine.seat}.", status=409)
    if game.status != Game.Status.WAITING:
        raise DomainError("game_already_started", "This game has already started.", status=409)
    if game.ranked and player.is_guest:
        raise DomainError("account_required", "Ranked games need a registered account.", status=403)
    held = _held_seats(game)
    chosen: GameSeat | None
    if player.pk in held.values():
        chosen = next(s for s in seats if held.get(s.seat) == player.pk)
        if seat is not None and seat != chosen.seat:
            raise DomainError("seat_reserved", f"You are invited to seat {chosen.seat}.", status=409)
        return _sit_invited(game, seats, chosen, player, device_id)
    open_seats = [s for s in seats if s.player_id is None and s.seat not in held]
    if not open_seats:
        raise DomainError("table_full", "Every seat at this table is taken or held for an invited player.", status=409)
    if seat is None:
        chosen = open_seats[0]
    else:
        chosen = next((s for s in seats if s.seat == seat), None)
        if chosen is None:
            raise DomainError("invalid_seat", f"This table has seats 0 to {len(seats) - 1}.")
        if chosen.player_id is not None:
            raise DomainError("seat_taken", f"Seat {seat} is taken.", status=409)
        if chosen.seat in held:
            raise DomainError("seat_reserved", f"Seat {seat} is held for an invited player.", status=409)
    _sit(game, seats, chosen, player, device_id)
    return game


def _sit(game: Game, seats: list[GameSeat], chosen: GameSeat, player: Player, device_id: str) -> None:
    """``player`` takes ``chosen`` (locked, open) at a waiting table, which starts when it is full."""
    chosen.player, chosen.joined_at = player, timezone.now()
    chosen.device_token_hash = device_token_hash(device_id)
    chosen.save(update_fields=["player", "joined_at", "device_token_hash"])
    if all(s.player_id for s in seats):
        _start(game)
    else:
        _seats_changed_on_commit(game)


def _held_seats(game: Game) -> dict[int, int]:
    """Seats held by a pending invitation that has not expired: seat -> invited player id."""
    return dict(selectors.held_invitations(game).values_list("seat", "player_id"))


def _sit_invited(game: Game, seats: list[GameSeat], chosen: GameSeat, player: Player, device_id: str) -> Game:
    SeatInvitation.objects.filter(game=game, seat=chosen.seat, status=SeatInvitation.Status.PENDING).update(
        status=SeatInvitation.Status.ACCEPTED, answered_at=timezone.now()
    )
    _sit(game, seats, chosen, player, device_id)
    return game


def _seats_changed_on_commit(game: Game) -> None:
    game_id = game.pk
    transaction.on_commit(lambda: notify.seats_changed(game_id))


@transaction.atomic
def invitation_answer(*, invitation_id: int, player: Player, accept: bool, device_id: str = "") -> SeatInvitation:
    """The invitee accepts (and sits down: the table starts once full) or declines (the seat opens)."""
    found = SeatInvitation.objects.filter(pk=invitation_id, player=player).values_list("game_id", flat=True).first()
    if found is None:
        raise DomainError("invitation_not_found", f"You have no invitation {invitation_id}.", status=404)
    game = lock_game(found)
    seats = list(game.seats.select_for_update(of=("self",)).select_related("player"))
    invitation = SeatInvitation.objects.select_for_update().get(pk=invitation_id)
    if invitation.status == SeatInvitation.Status.PENDING and invitation.expires_at <= timezone.now():
        invitation.status, invitation.answered_at = SeatInvitation.Status.EXPIRED, timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
    if invitation.status != SeatInvitation.Status.PENDING:
        raise DomainError(f"invitation_{invitation.status}", f"This invitation is {invitation.status}.", status=409)
    if not accept:
        invitation.status, invitation.answered_at = SeatInvitation.Status.DECLINED, timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        _seats_changed_on_commit(game)
        return invitation
    if any(s.player_id == player.pk for s in seats):
        raise DomainError("already_seated", "You already sit at this table.", status=409)
    chosen = next(s for s in seats if s.seat == invitation.seat)
    _sit_invited(game, seats, chosen, player, device_id)
    invitation.refresh_from_db()
    return invitation


def invitations_expire() -> int:
    """The sweeper's part: pending invitations past their time expire and free their seats."""
    now = timezone.now()
    expired = 0
    for invitation_id, game_id in SeatInvitation.objects.filter(
        status=SeatInvitation.Status.PENDING, expires_at__lte=now
    ).values_list("pk", "game_id")[:200]:
        with transaction.atomic():
            game = lock_game(game_id)
            expired += SeatInvitation.objects.filter(pk=invitation_id, status=SeatInvitation.Status.PENDING).update(
                status=SeatInvitation.Status.EXPIRED, answered_at=now
            )
            _seats_changed_on_commit(game)
    return expired


@transaction.atomic
def game_leave(*, game_id: int, player: Player, reason: str = "left") -> Game:
    """Leave a table: before the start the seat opens again; during play a CPU takes it."""
    game = lock_game(game_id)
    mine = game.seats.select_for_update().filter(player=player).first()
    if mine is None:
        raise DomainError("not_seated", "You do not sit at this table.", status=403)
    if game.status == Game.Status.WAITING:
        mine.player, mine.joined_at, mine.device_token_hash = None, None, ""
        mine.save(update_fields=["player", "joined_at", "device_token_hash"])
        _seats_changed_on_commit(game)
    elif game.status == Game.Status.ACTIVE and not mine.away:
        mine.away, mine.away_since = True, timezone.now()
        mine.save(update_fields=["away", "away_since"])
        append_table_events(
            game,
            [SeatVacated(seat=mine.seat, reason=reason).to_dict()],
            cause=GameEvent.Cause.SYSTEM,
            actor_seat=mine.seat,
        )
    elif game.status == Game.Status.FINISHED:
        raise DomainError("game_over", "This game is over.", status=409)
    return game


def may_reclaim(seat: GameSeat, device_id: str) -> bool:
    """Whether the seat's away player, on this device, takes it back: from the device they sat down
    on; a seat given by a tournament or the ranked queue (no device yet) from any device, which
    then becomes the seat's."""
    return not seat.device_token_hash or device_token_hash(device_id) == seat.device_token_hash


def seat_reclaim(game: Game, seat: GameSeat, device_id: str) -> None:
    """The away player is back on their device: the seat is theirs again (SeatReclaimed)."""
    if not may_reclaim(seat, device_id):
        raise DomainError(
            "wrong_device", "Your seat can be taken back only from the device you sat down on.", status=403
        )
    seat.away, seat.away_since = False, None
    if not seat.device_token_hash and device_id:
        seat.device_token_hash = device_token_hash(device_id)
    seat.save(update_fields=["away", "away_since", "device_token_hash"])
    append_table_events(
        game, [SeatReclaimed(seat=seat.seat).to_dict()], cause=GameEvent.Cause.SYSTEM, actor_seat=seat.seat
    )


@transaction.atomic
def game_reassign_seat(*, game_id: int, seat: int, player: Player) -> Game:
    """A director's correction: ``player`` takes over ``seat`` of a started game (SeatReassigned).

    The seat's hand is theirs to see and play from this event on; whoever sat there becomes a
    spectator at once (every live connection learns it from the event).

    Refused (409 ``knows_another_seat``) while the hand in play has been seen by the player from
    another seat of this game (a swap within the table, or out and back in): they would know
    that seat's cards. Their own former seat they may take back; another, once a hand they never saw
    is dealt (never, then, for two players of the table exchanging seats)."""
    game = lock_game(game_id)
    row = GameSeat.objects.select_for_update().get(game=game, seat=seat)
    if row.player_id == player.pk:
        return game
    seen = visibility.seats_held_this_hand(game.pk, player.pk) - {seat} if game.status == Game.Status.ACTIVE else set()
    if seen:
        held = min(seen)
        raise DomainError(
            "knows_another_seat",
            f"{player} has held seat {held} in this hand and knows its cards: "
            f"seat {seat} can be theirs once a hand they have not seen is dealt.",
            status=409,
        )
    row.player, row.joined_at, row.device_token_hash = player, timezone.now(), ""
    row.away, row.away_since, row.disconnected_since = False, None, None
    row.save(update_fields=["player", "joined_at", "device_token_hash", "away", "away_since", "disconnected_since"])
    if game.status == Game.Status.ACTIVE:
        append_table_events(
            game,
            [SeatReassigned(seat=seat, player_id=player.pk, name=player.display_name).to_dict()],
            cause=GameEvent.Cause.SYSTEM,
            actor_seat=seat,
        )
    _round_seats_changed_on_commit(game)  # whatever its size: seated in the round, not staff at its sealed tables
    return game


def _round_seats_changed_on_commit(game: Game) -> None:
    """The newly seated player may be watching another table of the game's round, if it is a
    tournament table (staff): tell those tables, whose connections then look again at who may
    watch (a player of the round may not)."""
    round_id = visibility.round_of(game)
    if round_id is None:
        return
    others = list(
        Table.objects.filter(round_id=round_id, game__isnull=False).exclude(game=game).values_list("game_id", flat=True)
    )

    def tell_them():
        for game_id in others:
            notify.seats_changed(game_id)

    transaction.on_commit(tell_them)


def _start(game: Game, deals: list | None = None) -> None:
    seats = list(game.seats.select_related("player").order_by("seat"))
    try:
        state = engine.Game.new(
            # a game starts with every seat taken
            engine.Rules.from_dict(game.rules),
            players=[s.player.display_name for s in seats],  # type: ignore[union-attr]
            deals=deals,
        )
    except ValueError as error:
        raise DomainError("invalid_deals", f"These deals are not valid: {error}") from None
    game.deal_salt = eventstore.new_deal_salt()
    # kept (secret) so that a game rebuilt from its log goes on dealing the planned hands
    game.planned_deals = [[[str(card) for card in part] for part in deal] for deal in deals or ()]
    game.status, game.started_at = Game.Status.ACTIVE, timezone.now()
    first, *rest = [event.to_dict() for event in state.events]
    seated = PlayersSeated(
        seats=[
            # a game starts with every seat taken
            {"seat": s.seat, "player_id": s.player_id, "name": s.player.display_name, "cpu": s.player.is_cpu}  # type: ignore[union-attr]
            for s in seats
        ]
    ).to_dict()
    rows = eventstore.append_events(game, [first, seated, *rest], cause=GameEvent.Cause.SYSTEM)
    plan = plan_turn(game, state)
    game.save()
    SeatInvitation.objects.filter(game=game, status=SeatInvitation.Status.PENDING).update(
        status=SeatInvitation.Status.CANCELLED, answered_at=timezone.now()
    )
    eventstore.keep_engine_game(game, state)
    _publish_on_commit(game, plan, rows)


# --- commands ---------------------------------------------------------------------------------


def _run(state: engine.Game, seat: int, command: dict) -> list:
    kind = command.get("type")
    if kind == CommandType.PLAY:
        return state.play(seat, command.get("card"))  # type: ignore[arg-type]  # parse_command needs it
    if kind == CommandType.PASS:
        cards = command.get("cards")
        if not isinstance(cards, list | tuple):
            raise engine.IllegalMove("pass_needs_three_cards", "Choose three cards to pass.")
        return state.pass_cards(seat, cards)
    if kind == CommandType.MOON_CHOICE:
        return state.choose_moon(seat, command.get("choice"))  # type: ignore[arg-type]  # parse_command needs it
    raise DomainError("unknown_command", f"Unknown command {kind!r}: pass, play or moon_choice.")


def game_execute_command(
    *,
    game_id: int,
    command: dict,
    player: Player | None = None,
    seat: int | None = None,
    command_id: str = "",
    expected_seq: int | None = None,
    cause: str = GameEvent.Cause.PLAYER,
    savepoint: bool = True,
) -> CommandResult:
    """Run a player's (or, with ``seat`` and a cause, a CPU's or timer's) command.

    Raises DomainError: ``stale_state`` (409) when ``expected_seq`` is not the game's seq,
    the engine's code (400) for an illegal move. A retried ``command_id`` appends nothing
    and returns what the first attempt appended. ``savepoint=False``: inside a caller's
    transaction that already holds the game's lock and gives up whole on any error (a
    simulated table), no savepoint around the command (two round trips fewer a move).
    """
    if _may_move_on_cache():
        moved = _move_on_cache(game_id, command, player, seat, command_id, expected_seq, cause)
        if moved is not None:
            return moved
    try:
        with transaction.atomic(savepoint=savepoint):
            return _execute(game_id, command, player, seat, command_id, expected_seq, cause)
    except IntegrityError:
        # Another writer appended the same seq first (only possible without row locks).
        raise DomainError("stale_state", "The game moved on; reload and try again.", status=409) from None


def _same_command(earlier: list[GameEvent], command: dict, expected_seq: int | None) -> bool:
    """Whether ``command`` (and its ``expected_seq``) is the one whose events ``earlier`` are."""
    first = earlier[0]
    if expected_seq is not None and expected_seq != first.seq - 1:
        return False
    kind = command.get("type")
    try:
        if kind == CommandType.PLAY:
            # parse_command needs the card of a play
            return first.type == "CardPlayed" and engine.Card.parse(command.get("card")) == engine.Card.parse(  # type: ignore[arg-type]
                first.payload["card"]
            )
        if kind == CommandType.PASS:
            return first.type == "CardsPassed" and {engine.Card.parse(c) for c in command.get("cards") or ()} == {
                engine.Card.parse(c) for c in first.payload["cards"]
            }
        if kind == CommandType.MOON_CHOICE:
            return first.type == "MoonChosen" and command.get("choice") == first.payload["choice"]
    except (ValueError, TypeError):
        return False
    return False


def _acting_seat(seats: list[GameSeat], player: Player | None, seat: int | None) -> int:
    """The seat ``player`` plays (``seat`` if given: a CPU's or a timer's move)."""
    if seat is not None:
        return seat
    seat_row = next((s for s in seats if player is not None and s.player_id == player.pk), None)
    if seat_row is None:
        raise DomainError("not_seated", "You do not sit at this table.", status=403)
    if seat_row.away:
        raise DomainError("seat_away", "A CPU is playing your seat; join again from your device.", status=409)
    return seat_row.seat


def _execute(game_id, command, player, seat, command_id, expected_seq, cause) -> CommandResult:
    game, seats = queries.lock_game_with_seats(game_id)
    if game is None:
        game = lock_game(game_id)  # not found, or a game without seats
    seat = _acting_seat(seats, player, seat)
    if command_id:
        earlier = queries.earlier_events(game, command_id, seat)
        if earlier:
            if not _same_command(earlier, command, expected_seq):
                raise DomainError(
                    "command_id_reused",
                    f"Command id {command_id!r} was used for another command: "
                    "a retry sends the same command, a new command needs a new id.",
                    status=409,
                )
            return CommandResult(game=game, events=earlier, duplicate=True)
    if expected_seq is not None and expected_seq != game.seq:
        raise DomainError(
            "stale_state", f"The game is at seq {game.seq}, not {expected_seq}.", status=409, seq=game.seq
        )
    if game.status != Game.Status.ACTIVE:
        code = "game_over" if game.is_over else "game_not_started"
        raise DomainError(code, "This game is over." if game.is_over else "This game has not started yet.", status=409)
    state = eventstore.take_engine_game(game)
    try:
        emitted = _run(state, seat, command)
    except engine.IllegalMove as illegal:
        eventstore.keep_engine_game(game, state, seats)  # a refused command changes nothing
        raise DomainError(illegal.code, illegal.message) from None
    events = _events_of_move(game, state, emitted)
    rows = eventstore.append_events(game, events, cause=cause, command_id=command_id, actor_seat=seat)
    plan = plan_turn(game, state, seats)
    sql.update(game, LOG_FIELDS)
    eventstore.keep_engine_game(game, state, seats)
    _publish_on_commit(game, plan, rows)
    return CommandResult(game=game, events=rows)


def _events_of_move(game: Game, state: engine.Game, emitted: list) -> list[dict]:
    """The engine's events of a move and, if it ended the game (or its hand limit), the game's
    closing events; sets the row's result fields."""
    events = [event.to_dict() for event in emitted]
    if state.phase == engine.Phase.GAME_OVER:
        game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
        game.final_totals, game.winner_seat = list(state.totals), state.winner
        events.append(DealSaltRevealed(salt=game.deal_salt).to_dict())
    elif game.hand_limit and any(e["type"] == "HandScored" and e["hand_number"] >= game.hand_limit for e in events):
        totals = list(state.totals)
        lowest = [seat for seat, total in enumerate(totals) if total == min(totals)]
        game.status, game.finished_at = Game.Status.FINISHED, timezone.now()
        game.final_totals, game.winner_seat = totals, lowest[0] if len(lowest) == 1 else None
        events += [
            HandLimitReached(hands=game.hand_limit, totals=totals).to_dict(),
            DealSaltRevealed(salt=game.deal_salt).to_dict(),
        ]
    return events


# --- a move on the cached state -----------------------------------------------------------------
#
# The locked path above costs five round trips (begin, lock the game and its seats, insert the
# events, update the row, commit), and a Daphne process runs its database work on one thread.
# A move whose game this process changed last already holds all it reads: the engine state,
# the row and the seats at that log version (``eventstore.Cached``); a live move whose state a
# connection cached (catching up) reads the row and seats first, in one unlocked statement
# (``_cache_row_and_seats``). It is written in one
# statement that updates the row only if it is still at that version and inserts the events
# only if it did; anything else (another process moved the game, a seat changed hands, a
# retried command id, a refusal) goes the locked way, which answers with authority.


def _may_move_on_cache() -> bool:
    connection = transaction.get_connection()
    return settings.HEARTS_MOVES_ON_CACHE and connection.vendor == "postgresql" and not connection.in_atomic_block


@dataclass
class _CachedMove:
    """A move made on the cached state, row and seats, not written yet."""

    game: Game
    seats: list[GameSeat]
    state: engine.Game
    at: tuple[int, str]  # the log version the move was made at
    seat: int
    command_id: str
    rows: list[GameEvent]
    plan: TurnPlan

    def written(self) -> CommandResult:
        """What follows the write: the result, with a copy of the row as committed (the feed
        shares it), then the state, row and seats cached for the next move (the row is the
        cache's own, as it came). The copy is taken first: once the row is back in the cache,
        another thread's next move may take it and change it."""
        result = CommandResult(game=sql.copy_row(self.game), events=self.rows)
        eventstore.keep_engine_game(self.game, self.state, self.seats, copy=False)
        return result


def _move_on_cache(game_id, command, player, seat, command_id, expected_seq, cause) -> CommandResult | None:
    """The move written in one guarded statement from the cached state, or None (nothing
    written) if the locked path must decide."""
    move = _cached_move(game_id, command, player, seat, command_id, expected_seq, cause)
    if move is None or not queries.write_if_unmoved(
        move.game, LOG_FIELDS, move.rows, move.at, move.command_id, move.seat
    ):
        return None  # a stale entry was dropped by taking it: the locked path reads afresh
    result = move.written()
    _publish_on_commit(result.game, move.plan, move.rows, copied=True)
    return result


def _cached_move(game_id, command, player, seat, command_id, expected_seq, cause) -> _CachedMove | None:
    """The move made on the cached entry (taken from the cache), or None if there is none for
    the game or the locked path must answer (a refusal: the entry is put back)."""
    entry = eventstore.engine_cache.take_for_move(game_id)
    if entry is None or entry.row is None or entry.seats is None:  # take_for_move's test: narrows for mypy
        return None
    game, seats, state = entry.row, entry.seats, entry.state
    try:
        seat = _acting_seat(seats, player, seat)
        if (expected_seq is not None and expected_seq != game.seq) or game.status != Game.Status.ACTIVE:
            seat = None
        emitted = _run(state, seat, command) if seat is not None else None
    except (DomainError, engine.IllegalMove):  # a refused move changes nothing
        emitted = None
    if emitted is None or seat is None:
        eventstore.engine_cache.put(game_id, entry.version, state, game, seats)
        return None
    events = _events_of_move(game, state, emitted)
    rows = eventstore.new_rows(game, events, cause=cause, command_id=command_id, actor_seat=seat)
    plan = plan_turn(game, state, seats)
    return _CachedMove(game, seats, state, entry.version, seat, command_id, rows, plan)


async def game_execute_command_async(
    *, game_id: int, command: dict, player: Player, command_id: str = "", expected_seq: int | None = None
) -> CommandResult:
    """:func:`game_execute_command` for a player's command from a server's event loop (a live
    connection). A move this process can make on its cache is written from the loop, in one
    statement on the loop's own connections (``loop_db``); anything else runs on the database
    thread, as any other caller's command. The same checks, events and answers either way."""
    arguments: dict[str, Any] = {
        "game_id": game_id,
        "command": command,
        "player": player,
        "command_id": command_id,
        "expected_seq": expected_seq,
    }
    if not loop_db.available():
        return await database_sync_to_async(game_execute_command)(**arguments)
    # A task of its own: a consumer cancelled meanwhile (its client went away, the server stops)
    # must not stop a move between its commit and the feed, the notification and the follow-ups.
    return await asyncio.shield(_live_command(arguments))


async def _live_command(arguments: dict) -> CommandResult:
    game_id = arguments["game_id"]
    # One command of a game at a time in this process: while one is being written its cached
    # entry is out of the cache, and the next would go to the database thread and replay the log
    # (four passes arrive together at every hand's start).
    async with _live_lock(game_id):
        move = _live_move(arguments)
        if move is None and await _cache_row_and_seats(game_id):
            move = _live_move(arguments)
        lost = False
        if move is not None:
            try:
                written = await queries.write_if_unmoved_async(
                    move.game, LOG_FIELDS, move.rows, move.at, move.command_id, move.seat
                )
            except loop_db.ConnectionFailed:
                # Nothing known (it may even have committed): the locked path answers with
                # authority, a retried command id as the duplicate it is.
                log.warning("game %s: a loop connection failed; the database thread decides", game_id, exc_info=True)
                written, lost = False, True
            if written:
                result = move.written()
                game, plan = result.game, move.plan
                feed.publish(game, move.rows)
                await scheduler.game_advanced_async(
                    game.pk, game.seq, plan.cpu_to_act, game.turn_deadline, finished=game.is_over
                )
                return result
        try:
            return await database_sync_to_async(game_execute_command)(**arguments)
        finally:
            if lost:
                # The lost statement may have committed, unannounced and with nothing scheduled
                # after it (the locked path then answers a retry as a duplicate, or refuses a
                # command without an id): announce the game as stored and schedule what follows.
                await database_sync_to_async(_announce_again)(game_id)


def _live_move(arguments: dict) -> _CachedMove | None:
    return _cached_move(
        arguments["game_id"],
        arguments["command"],
        arguments["player"],
        None,
        arguments["command_id"],
        arguments["expected_seq"],
        GameEvent.Cause.PLAYER,
    )


async def _cache_row_and_seats(game_id: int) -> bool:
    """Give a state that a reader cached (a connection catching up, when a table opens) the row
    and seats a move needs, read in one unlocked statement from the loop: else the table's first
    move would go to the database thread, every table's at once when a round starts. The move's
    guarded write still checks that the row has not moved since. True if the entry has them now."""
    if not eventstore.engine_cache.lacks_row(game_id):
        return False
    try:
        game, seats = await queries.game_with_seats_async(game_id)
    except loop_db.ConnectionFailed:
        log.warning("game %s: a loop connection failed; the locked path reads the seats", game_id, exc_info=True)
        return False
    return game is not None and eventstore.engine_cache.attach_row(game_id, game, seats)


def _announce_again(game_id: int) -> None:
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        scheduler.game_announced_again(game)


_live_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


LIVE_COMMAND_WAIT = 2.0
"""Seconds a reader waits for the game's live commands (:func:`wait_for_live_commands`) before
it reads from the database instead."""


async def wait_for_live_commands(game_id: int) -> bool:
    """Wait until this process is writing no live command of the game (while one is, its state
    is out of the cache; commands queued behind it are waited for too), for at most
    ``LIVE_COMMAND_WAIT`` seconds. True if there were some and they are done: right after,
    before the caller awaits anything, the cache holds the state as the last left it, and a
    reader can build its frames from memory instead of replaying the log."""
    lock = _live_locks.get(game_id)
    if lock is None or not lock.locked():
        return False

    try:
        # In the caller's own task (not wait_for's): a writer queued behind the caller must not
        # take the state out of the cache before the caller reads it.
        async with asyncio.timeout(LIVE_COMMAND_WAIT):
            async with lock:
                pass
    except TimeoutError:
        return False
    return True


def _live_lock(game_id: int) -> asyncio.Lock:
    """The game's lock for the live commands of this process (kept while someone holds or waits
    for it, so a lock is never reused on another event loop)."""
    lock = _live_locks.get(game_id)
    if lock is None:
        lock = _live_locks[game_id] = asyncio.Lock()
    return lock


def append_table_events(game: Game, events: list[dict], *, cause: str, actor_seat: int | None) -> None:
    """Append table events (seats changing hands): the card state stays, who plays it changes."""
    state = eventstore.take_engine_game(game)
    rows = eventstore.append_events(game, events, cause=cause, actor_seat=actor_seat)
    plan = plan_turn(game, state)
    sql.update(game, LOG_FIELDS)
    eventstore.keep_engine_game(game, state)
    _publish_on_commit(game, plan, rows)


def _publish_on_commit(game: Game, plan: TurnPlan, rows: list[GameEvent], *, copied: bool = False) -> None:
    """After the commit: the feed gets the row as committed (a copy, unless ``copied``: the
    caller's is one already and nobody changes it), then the notification and follow-ups."""
    game_id, seq, finished = game.pk, game.seq, game.is_over
    snapshot = game if copied else sql.copy_row(game)  # the row as committed, for this process's live connections

    def after_commit():
        feed.publish(snapshot, rows)
        scheduler.game_advanced(game_id, seq, plan.cpu_to_act, plan.new_deadline, finished=finished)

    transaction.on_commit(after_commit)
