"""Club competitions: leagues, seasons, tournaments, registration, and the round flow.

A round is *seated* (tables drawn with ``tournaments.competitions.seating``, nothing played yet: the
director can still swap players), then *started* (one game per table, through
``game_create``; with duplicate deals every table of a size is dealt the round's stored
deals), then *finished* when every table has a result. A table's result is recorded when its
game ends (the ``HEARTS_GAME_FINISHED_HOOKS`` hook ``competition_game_finished``) or, in a
round of a fixed number of hands, as soon as the game's log holds that many ``HandScored``
events (``competition_table_check``): the table's totals after hand N count, whatever the game
does afterwards. With ``auto_advance`` the next round is seated and started when the last table
of a round finishes.
"""

from __future__ import annotations

import hashlib
import math
import random
import secrets
from collections import Counter
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.module_loading import import_string

import engine
from engine import bots
from engine.cards import FULL_DECK, NAMES, cards_of
from hearts_league.api import DomainError
from tournaments.clubs.services import player_get_or_create_cpu, player_guest_to_member, player_register
from tournaments.competitions import seating
from tournaments.competitions import standings as scoring
from tournaments.competitions.selectors import points_by_place_of, standings_for_tournament
from tournaments.dispatch import notify
from tournaments.games import eventstore, visibility
from tournaments.games.services import SeatSpec, game_create, game_execute_command, game_reassign_seat, lock_game
from tournaments.games.turns import bot_for_seat, cpu_command_id
from tournaments.models import (
    Club,
    Game,
    GameEvent,
    League,
    Player,
    Registration,
    RoleEnded,
    Round,
    Ruling,
    Season,
    Table,
    TableResult,
    Tournament,
)
from tournaments.names import InvalidName, clean_display_name

DUPLICATE_FULL_GAME_HANDS = 40
"""Deals stored per table size for a round played to the end score (later hands, if a game is
that long, are dealt at random)."""

FORMATS = set(Tournament.Format.values)
ROUND_MODES = set(Tournament.RoundMode.values)


# --- leagues and seasons ----------------------------------------------------------------------


@transaction.atomic
def league_create(
    *, club: Club, name: str, slug: str, default_rules: dict | None = None, rate_games_with_cpus: bool = False
) -> League:
    _check_rules(default_rules or {}, players=None)
    if League.objects.filter(club=club, slug=slug).exists():
        raise DomainError("league_exists", f"The club already has a league {slug!r}.", status=409)
    return League.objects.create(
        club=club,
        name=name,
        slug=slug,
        default_rules=default_rules or {},
        rate_games_with_cpus=rate_games_with_cpus,
    )


@transaction.atomic
def season_create(*, league: League, name: str, starts_on=None, ends_on=None) -> Season:
    if starts_on and ends_on and ends_on < starts_on:
        raise DomainError("invalid_dates", "A season cannot end before it starts.")
    if Season.objects.filter(league=league, name=name).exists():
        raise DomainError("season_exists", f"The league already has a season {name!r}.", status=409)
    return Season.objects.create(league=league, name=name, starts_on=starts_on, ends_on=ends_on)


# --- rules ------------------------------------------------------------------------------------


def _check_rules(rules: dict, players: int | None) -> engine.Rules:
    try:
        merged = {**rules, **({"players": players} if players else {})}
        return engine.Rules.from_dict(merged)
    except (TypeError, ValueError) as error:
        raise DomainError("invalid_rules", f"These rules are not valid: {error}") from None


def _fixed_rules(tournament: Tournament) -> dict:
    """League defaults + the tournament's overrides, every field spelled out, without the
    player count (each table has its own) and without removed cards unless chosen."""
    merged = {**tournament.league.default_rules, **tournament.rules_overrides}
    full = _check_rules(merged, players=tournament.preferred_table_size).to_dict()
    full.pop("players", None)
    if "removed_cards" not in merged:
        full.pop("removed_cards", None)
    return full


def rules_for_size(tournament: Tournament, size: int) -> dict:
    return _check_rules(tournament.rules or _fixed_rules(tournament), players=size).to_dict()


MAX_PLACE_POINTS = 10**6  # issue 18: bounds _check_points_by_place


def _check_points_by_place(points: dict) -> dict:
    checked = {}
    for key, values in (points or {}).items():
        try:
            size = int(key)
        except (TypeError, ValueError):
            raise DomainError("invalid_points", f"Table sizes are 3, 4 or 5, not {key!r}.") from None
        if size not in seating.TABLE_SIZES:
            raise DomainError("invalid_points", f"Table sizes are 3, 4 or 5, not {key!r}.")
        if (
            not isinstance(values, list | tuple)
            or len(values) != size
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        ):
            raise DomainError("invalid_points", f"A table of {size} needs {size} numbers, best place first.")
        # issue 18 (hostile input): infinity or a number too large to add up as a float was a 500
        if not all(math.isfinite(v) and abs(v) <= MAX_PLACE_POINTS for v in values):
            raise DomainError("invalid_points", f"Points by place are finite numbers up to {MAX_PLACE_POINTS:,}.")
        checked[str(size)] = list(values)
    return checked


# --- tournaments and registration -------------------------------------------------------------


@transaction.atomic
def tournament_create(
    *,
    league: League,
    name: str,
    created_by: Player | None = None,
    season: Season | None = None,
    format: str = Tournament.Format.SWISS,
    round_mode: str = Tournament.RoundMode.FULL_GAME,
    hands_per_round: int = 4,
    rounds_planned: int = 5,
    seeding: str = Tournament.Seeding.LEAGUE,
    rules_overrides: dict | None = None,
    preferred_table_size: int = 4,
    prefer: str = "smaller",
    allow_cpu_fill: bool = False,
    cpu_bot: str = "rule",
    duplicate_deals: bool = False,
    points_by_place: dict | None = None,
    final_table_size: int = 0,
    auto_advance: bool = False,
    turn_seconds: int | None = None,
    seed: int | None = None,
) -> Tournament:
    """Create a tournament, open for registration. Its rules are fixed when the first round starts."""
    if format not in FORMATS:
        raise DomainError("invalid_format", f"The format is one of {', '.join(sorted(FORMATS))}.")
    if round_mode not in ROUND_MODES:
        raise DomainError("invalid_round_mode", f"A round is one of {', '.join(sorted(ROUND_MODES))}.")
    if round_mode == Tournament.RoundMode.FIXED_HANDS and not 1 <= hands_per_round <= 50:
        raise DomainError("invalid_hands", "A fixed-hands round has 1 to 50 hands.")
    if not 1 <= rounds_planned <= 50:
        raise DomainError("invalid_rounds", "A tournament has 1 to 50 rounds.")
    if seeding not in Tournament.Seeding.values:
        raise DomainError("invalid_seeding", f"Seeding is one of {', '.join(Tournament.Seeding.values)}.")
    if preferred_table_size not in seating.TABLE_SIZES:
        raise DomainError("invalid_table_size", "Tables seat 3, 4 or 5 players.")
    if prefer not in Tournament.Prefer.values:
        raise DomainError("invalid_prefer", "prefer is 'smaller' or 'larger'.")
    if final_table_size not in (0, *seating.TABLE_SIZES):
        raise DomainError("invalid_final", "A final table seats 3, 4 or 5 players (0: no final).")
    if cpu_bot not in bots.KINDS:
        raise DomainError("invalid_bot", "CPUs are random, rule or montecarlo.")
    if turn_seconds not in (None, 30, 60):
        raise DomainError("invalid_turn_time", "The turn time is unlimited, 30 or 60 seconds.")
    if season is not None and season.league_id != league.pk:
        raise DomainError("invalid_season", "The season belongs to another league.")
    tournament = Tournament(
        league=league,
        season=season,
        name=name,
        created_by=created_by,
        format=format,
        round_mode=round_mode,
        hands_per_round=hands_per_round,
        rounds_planned=rounds_planned,
        seeding=seeding,
        rules_overrides=rules_overrides or {},
        preferred_table_size=preferred_table_size,
        prefer=prefer,
        allow_cpu_fill=allow_cpu_fill,
        cpu_bot=cpu_bot,
        duplicate_deals=duplicate_deals,
        points_by_place=_check_points_by_place(points_by_place or {}),
        final_table_size=final_table_size,
        auto_advance=auto_advance,
        turn_seconds=turn_seconds,
        seed=seed,
    )
    _fixed_rules(tournament)  # refuses invalid rules now rather than at the first round
    tournament.save()
    return tournament


def _locked_tournament(tournament_id: int) -> Tournament:
    locked = Tournament.objects.select_for_update(of=("self",)).select_related("league")
    tournament = locked.filter(pk=tournament_id).first()
    if tournament is None:
        raise DomainError("tournament_not_found", f"There is no tournament {tournament_id}.", status=404)
    _board_changed(tournament.pk)  # every change to a tournament locks it first (a refusal rolls back)
    return tournament


def _board_changed(tournament_id: int) -> None:
    """Once this transaction commits, the tournament's live boards read it again."""
    transaction.on_commit(lambda: notify.tournament_changed(tournament_id))


def _latest_round(tournament: Tournament) -> Round | None:
    return tournament.rounds.order_by("-number").first()


@transaction.atomic
def tournament_register(*, tournament_id: int, player: Player) -> Registration:
    """Register a player (again, after a withdrawal). Late entries play from the next round
    seated; if a round is seated but not started, it is seated again with them."""
    tournament = _locked_tournament(tournament_id)
    if tournament.status == Tournament.Status.FINISHED:
        raise DomainError("tournament_finished", "This tournament is over.", status=409)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is not None and registration.status == Registration.Status.ACTIVE:
        raise DomainError("already_registered", f"{player} is already registered.", status=409)
    latest = _latest_round(tournament)
    seated = latest if latest is not None and latest.status == Round.Status.SEATED else None
    joined = seated.number if seated else (latest.number + 1 if latest else 1)
    if registration is None:
        registration = Registration(tournament=tournament, player=player)
    registration.status, registration.joined_round, registration.withdrawn_after_round = (
        Registration.Status.ACTIVE,
        joined,
        None,
    )
    registration.save()
    if seated is not None:
        _reseat(tournament, seated)
    return registration


@transaction.atomic
def tournament_register_walk_in(*, tournament_id: int, display_name: str, password: str | None = None) -> Registration:
    """A walk-in player in one step: an account of the league's club under this display name
    (username ``walkin-…``; with ``password`` they sign in with it at once, else a director sets
    one later) registered in the tournament. Nothing is created if the name is refused or taken."""
    tournament = _locked_tournament(tournament_id)
    try:
        name = clean_display_name(display_name)
    except InvalidName as error:
        raise DomainError("invalid_display_name", str(error)) from None
    player = player_register(
        username=f"walkin-{secrets.token_hex(3)}",
        password=password or None,
        display_name=name,
        club=tournament.league.club,
    )
    return tournament_register(tournament_id=tournament.pk, player=player)


@transaction.atomic
def tournament_register_guest(*, tournament_id: int, player: Player) -> Registration:
    """A guest turned into an account of the league's club, and registered (one transaction)."""
    tournament = _locked_tournament(tournament_id)
    member = player_guest_to_member(player=player, club=tournament.league.club)
    return tournament_register(tournament_id=tournament.pk, player=member)


@transaction.atomic
def tournament_withdraw(*, tournament_id: int, player: Player) -> Registration:
    """Withdraw from the next round on (results already played stay in the standings); a round
    seated but not started is seated again without the player."""
    tournament = _locked_tournament(tournament_id)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is None:
        raise DomainError("not_registered", f"{player} is not registered.", status=404)
    if registration.status == Registration.Status.WITHDRAWN:
        raise DomainError("already_withdrawn", f"{player} has already withdrawn.", status=409)
    if tournament.status == Tournament.Status.FINISHED:
        raise DomainError("tournament_finished", "This tournament is over.", status=409)
    latest = _latest_round(tournament)
    seated = latest if latest is not None and latest.status == Round.Status.SEATED else None
    played = latest.number - (1 if seated else 0) if latest else 0
    registration.status, registration.withdrawn_after_round = Registration.Status.WITHDRAWN, played
    registration.save(update_fields=["status", "withdrawn_after_round"])
    if seated is not None:
        _reseat(tournament, seated)
    return registration


# --- seating a round --------------------------------------------------------------------------


def _round_seed(tournament: Tournament, number: int) -> int:
    if tournament.seed is not None:
        return (tournament.seed * 1000 + number) % (2**62)
    return random.SystemRandom().getrandbits(62)


def make_deals(rules: engine.Rules, count: int, rng: random.Random) -> list[list[list[str]]]:
    """``count`` random deals for these rules, each the N hands (and the kitty, if any)."""
    deck_cards = [NAMES[card] for card in cards_of(FULL_DECK & ~rules.removed_mask)]
    size, n = rules.hand_size, rules.players
    deals = []
    for _ in range(count):
        deck = list(deck_cards)
        rng.shuffle(deck)
        deal = [deck[seat * size : (seat + 1) * size] for seat in range(n)]
        if rules.kitty_size:
            deal.append(deck[n * size :])
        deals.append(deal)
    return deals


def _seeding(tournament: Tournament, player_ids: list[int], rng: random.Random) -> list[tuple[int, float]]:
    """Round 1 of a Swiss: every player with their rating from ``HEARTS_SEEDING_RATINGS`` (the
    league's pool, else the global one; or the global pool only), in a shuffled order so that
    equal and missing ratings (placed last) are drawn by lot. Seeded by lot, every rating is equal."""
    rated = {}
    if tournament.seeding != Tournament.Seeding.LOT and settings.HEARTS_SEEDING_RATINGS:
        # a settings hook, not an import: ratings builds on tournaments, not the reverse
        league_id = tournament.league_id if tournament.seeding == Tournament.Seeding.LEAGUE else None
        rated = import_string(settings.HEARTS_SEEDING_RATINGS)(player_ids=player_ids, league_id=league_id)
    shuffled = list(player_ids)
    rng.shuffle(shuffled)
    return [(pid, rated.get(pid, -math.inf)) for pid in shuffled]


def _history(tournament: Tournament, before: int) -> seating.SeatingHistory:
    """Who met whom and who sat where in the rounds before ``before`` (CPU fill seats are
    anonymous: a CPU filling seats is not anyone's opponent twice)."""
    rounds = []
    for r in tournament.rounds.filter(number__lt=before).prefetch_related("tables").order_by("number"):
        rounds.append(
            [
                [("cpu", r.number, t.number, seat) if seat in t.cpu_fill else pid for seat, pid in enumerate(t.players)]
                for t in r.tables.all()
            ]
        )
    return seating.SeatingHistory.from_rounds(rounds)


def _seat(tournament: Tournament, round_: Round) -> None:
    """Draw the round's tables (``round_`` is saved, without tables) and its duplicate deals."""
    number = round_.number
    active = list(
        Registration.objects.filter(tournament=tournament, status=Registration.Status.ACTIVE, joined_round__lte=number)
        .order_by("id")
        .values_list("player_id", flat=True)
    )
    order = [line.player_id for line in standings_for_tournament(tournament)]
    place = {pid: i for i, pid in enumerate(order)}
    by_standing = sorted(active, key=lambda pid: (place.get(pid, len(place)), pid))
    rng = random.Random(round_.seed)
    history = _history(tournament, number)

    if round_.is_final:
        n = tournament.final_table_size
        if len(by_standing) < n:
            raise DomainError("not_enough_players", f"A final of {n} needs {n} active players.", status=409)
        tables = seating.final_table(by_standing, n)
    else:
        fill = 0
        if tournament.allow_cpu_fill:
            fill = seating.cpu_fill_needed(len(active), tournament.preferred_table_size)
        fillers = [-(i + 1) for i in range(fill)]
        try:
            sizes = seating.table_sizes(
                len(active) + fill,
                tournament.preferred_table_size,
                prefer=tournament.prefer,  # type: ignore[arg-type]  # a Tournament.Prefer choice: "smaller" or "larger"
            )
        except ValueError as error:
            raise DomainError("not_enough_players", str(error), status=409) from None
        entrants = by_standing + fillers
        if tournament.format == Tournament.Format.RANDOM:
            tables = seating.seat_random(entrants, sizes, rng)
        elif tournament.format == Tournament.Format.SWISS and not history.meetings:
            tables = seating.seat_by_rating(
                _seeding(tournament, by_standing, rng) + [(f, -math.inf) for f in fillers], sizes
            )
            tables = seating.assign_seats(tables, history, rng)
        elif tournament.format == Tournament.Format.SWISS:
            tables = seating.seat_swiss(entrants, history, sizes, rng)
        else:
            tables = seating.seat_balanced_rotation(entrants, 1, sizes, rng, history=history, effort=8)[0]

    cpu = None
    if any(pid < 0 for table in tables for pid in table):
        cpu = player_get_or_create_cpu(bot_kind=tournament.cpu_bot)
    Table.objects.bulk_create(
        [
            Table(
                round=round_,
                number=i,
                players=[cpu.pk if pid < 0 else pid for pid in table],  # type: ignore[union-attr]  # set if any pid < 0
                cpu_fill=[seat for seat, pid in enumerate(table) if pid < 0],
            )
            for i, table in enumerate(tables, start=1)
        ]
    )
    if tournament.duplicate_deals:
        count = (
            tournament.hands_per_round
            if tournament.round_mode == Tournament.RoundMode.FIXED_HANDS
            else DUPLICATE_FULL_GAME_HANDS
        )
        round_.deals = {
            str(size): make_deals(
                engine.Rules.from_dict(rules_for_size(tournament, size)),
                count,
                random.Random(f"{round_.seed}:deals:{size}"),
            )
            for size in sorted({len(table) for table in tables})
        }
        round_.deals_salt = eventstore.new_deal_salt()
        round_.deals_commitment = round_deals_commitment(round_.deals_salt, round_.deals)
        round_.save(update_fields=["deals", "deals_salt", "deals_commitment"])


def round_deals_commitment(salt: str, deals: dict) -> str:
    """What a duplicate round publishes when it starts: sha256 of the salt and the canonical JSON
    of its deals by table size (both revealed when the round is over)."""
    return hashlib.sha256((salt + eventstore.canonical_json(deals)).encode()).hexdigest()


def _reseat(tournament: Tournament, round_: Round) -> None:
    round_.tables.all().delete()
    round_.deals, round_.deals_salt, round_.deals_commitment = {}, "", ""
    _seat(tournament, round_)


@transaction.atomic
def tournament_seat_round(*, tournament_id: int) -> Round:
    """Draw the next round's tables (the first round fixes the tournament's rules)."""
    tournament = _locked_tournament(tournament_id)
    return _seat_next(tournament)


def _seat_next(tournament: Tournament) -> Round:
    if tournament.status == Tournament.Status.FINISHED:
        raise DomainError("tournament_finished", "This tournament is over.", status=409)
    latest = _latest_round(tournament)
    if latest is not None and latest.status != Round.Status.FINISHED:
        raise DomainError("round_in_progress", f"Round {latest.number} is not finished yet.", status=409)
    number = latest.number + 1 if latest else 1
    if number > tournament.total_rounds:
        raise DomainError("no_more_rounds", "Every round of this tournament has been played.", status=409)
    if tournament.status == Tournament.Status.REGISTRATION:
        tournament.rules = _fixed_rules(tournament)
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, timezone.now()
        tournament.save(update_fields=["rules", "status", "started_at"])
    round_ = Round.objects.create(
        tournament=tournament,
        number=number,
        seed=_round_seed(tournament, number),
        is_final=bool(tournament.final_table_size) and number > tournament.rounds_planned,
    )
    _seat(tournament, round_)
    return round_


@transaction.atomic
def tournament_start_round(*, tournament_id: int) -> Round:
    """Start the seated round (seating the next round first if none is seated): each table's
    game is created with its players in seat order, CPUs in fill seats, and with duplicate
    deals the round's deals for its size."""
    tournament = _locked_tournament(tournament_id)
    latest = _latest_round(tournament)
    if latest is not None and latest.status == Round.Status.PLAYING:
        raise DomainError("round_in_progress", f"Round {latest.number} is being played.", status=409)
    round_ = latest if latest is not None and latest.status == Round.Status.SEATED else _seat_next(tournament)
    tables = list(round_.tables.order_by("number"))
    players = {p.pk: p for p in Player.objects.filter(pk__in={pid for t in tables for pid in t.players})}
    sharing = Counter(table.size for table in tables) if round_.deals else Counter()
    for table in tables:
        specs = [
            SeatSpec("cpu", bot=tournament.cpu_bot) if seat in table.cpu_fill else SeatSpec("player", player_id=pid)
            for seat, pid in enumerate(table.players)
        ]
        creator = next(
            (players[pid] for seat, pid in enumerate(table.players) if seat not in table.cpu_fill),
            players[table.players[0]],
        )
        table.game = game_create(
            creator=creator,
            rules=rules_for_size(tournament, table.size),
            seats=specs,
            turn_seconds=tournament.turn_seconds,
            league=tournament.league,
            deals=round_.deals.get(str(table.size)) or None,
            hand_limit=tournament.hands_per_round
            if tournament.round_mode == Tournament.RoundMode.FIXED_HANDS
            else None,
            sealed=sharing[table.size] > 1,  # other tables play these deals too
        )
        table.status = Table.Status.PLAYING
        table.save(update_fields=["game", "status"])
    round_.status, round_.started_at = Round.Status.PLAYING, timezone.now()
    round_.save(update_fields=["status", "started_at"])
    return round_


# --- results ----------------------------------------------------------------------------------


def _table_outcome(tournament: Tournament, game: Game) -> tuple[list[int], int] | None:
    """The totals that count for the table and the hands played, or None if it is not over."""
    scored = list(
        GameEvent.objects.filter(game=game, type="HandScored").order_by("seq").values_list("payload", flat=True)
    )
    if tournament.round_mode == Tournament.RoundMode.FIXED_HANDS and len(scored) >= tournament.hands_per_round:
        return list(scored[tournament.hands_per_round - 1]["totals"]), tournament.hands_per_round
    if game.status == Game.Status.FINISHED:
        return list(game.final_totals), len(scored)  # type: ignore[arg-type]  # a finished game has its totals
    return None


def _record(tournament: Tournament, table: Table, totals: list[int], hands: int) -> None:
    points = scoring.table_points(totals, points_by_place_of(tournament))
    TableResult.objects.bulk_create(
        [
            TableResult(
                table=table,
                seat=seat,
                player_id=pid,
                cpu_fill=seat in table.cpu_fill,
                hearts_points=totals[seat],
                table_points=points[seat],
                hands_played=hands,
            )
            for seat, pid in enumerate(table.players)
        ]
    )
    table.status, table.finished_at = Table.Status.FINISHED, timezone.now()
    table.save(update_fields=["status", "finished_at"])


@transaction.atomic
def competition_table_check(*, game_id: int) -> bool:
    """Record the result of the tournament table playing this game if it is over (its game
    ended, or a fixed-hands round reached its hands). Finishes the round with its last table,
    and with ``auto_advance`` starts the next. Idempotent; True if a result was recorded."""
    table = Table.objects.filter(game_id=game_id).select_related("round").first()
    if table is None:
        return False
    tournament = _locked_tournament(table.round.tournament_id)
    table = Table.objects.select_for_update(of=("self",)).select_related("round", "game").get(pk=table.pk)
    if table.status == Table.Status.FINISHED:
        return False
    outcome = _table_outcome(tournament, table.game)  # type: ignore[arg-type]  # found by its game
    if outcome is None:
        return False
    _record(tournament, table, *outcome)
    round_ = table.round
    if not round_.tables.exclude(status=Table.Status.FINISHED).exists():
        _finish(tournament, round_)
        if tournament.auto_advance and tournament.status != Tournament.Status.FINISHED:
            tournament_start_round(tournament_id=tournament.pk)
    return True


def competition_game_finished(*, game_id: int) -> None:
    """The HEARTS_GAME_FINISHED_HOOKS hook: a game ended; if it is a tournament table, record it."""
    competition_table_check(game_id=game_id)


def _matchpoints(round_: Round) -> None:
    results = list(TableResult.objects.filter(table__round=round_).order_by("table__number", "seat"))
    tables: dict[int, list] = {}
    for result in results:
        tables.setdefault(result.table_id, []).append((result.pk, result.hearts_points))
    points = scoring.matchpoints({round_.number: list(tables.values())})
    for result in results:
        result.matchpoints = points.get(result.pk, 0.0)
    TableResult.objects.bulk_update(results, ["matchpoints"])


def _finish(tournament: Tournament, round_: Round) -> None:
    if tournament.duplicate_deals:
        _matchpoints(round_)
    round_.status, round_.finished_at = Round.Status.FINISHED, timezone.now()
    round_.save(update_fields=["status", "finished_at"])
    # every table has played the deals: their games may be watched and shown whole
    Game.objects.filter(competition_table__round=round_, sealed=True).update(sealed=False)
    if round_.number >= tournament.total_rounds:
        tournament.status, tournament.finished_at = Tournament.Status.FINISHED, timezone.now()
        tournament.save(update_fields=["status", "finished_at"])


@transaction.atomic
def tournament_finish_round(*, tournament_id: int) -> Round:
    """The director closes the round being played: every table must have a result (a
    fixed-hands table counts once its hands are played, even if its game goes on)."""
    tournament = _locked_tournament(tournament_id)
    round_ = _latest_round(tournament)
    if round_ is None or round_.status != Round.Status.PLAYING:
        raise DomainError("no_round_playing", "No round is being played.", status=409)
    pending = []
    for table in round_.tables.select_related("game").order_by("number"):
        if table.status == Table.Status.FINISHED:
            continue
        # a started round's tables have games
        outcome = _table_outcome(tournament, table.game)  # type: ignore[arg-type]
        if outcome is None:
            pending.append(table.number)
        else:
            _record(tournament, table, *outcome)
    if pending:
        raise DomainError("round_incomplete", f"Tables {pending} have not finished.", status=409, tables=pending)
    _finish(tournament, round_)
    return round_


# --- director's corrections -------------------------------------------------------------------


@transaction.atomic
def table_swap_player(*, table_id: int, player_out: Player, player_in: Player, correction: bool = False) -> Table:
    """Put ``player_in`` in ``player_out``'s seat. If ``player_in`` sits at another table of
    the round, the two exchange seats; otherwise ``player_out`` sits this round out (and
    ``player_in`` must be registered). Before a round starts anyone may be swapped; once its
    games are created only as a ``correction`` (the seats of the games change too), never giving
    a player a second seat of a hand they have seen (``game_reassign_seat``)."""
    table = Table.objects.select_related("round").filter(pk=table_id).first()
    if table is None:
        raise DomainError("table_not_found", f"There is no table {table_id}.", status=404)
    tournament = _locked_tournament(table.round.tournament_id)
    round_ = table.round
    tables = {t.pk: t for t in round_.tables.select_for_update()}
    table = tables[table.pk]
    if player_out.pk not in table.players or _is_fill(table, player_out.pk):
        raise DomainError("not_at_table", f"{player_out} does not sit at table {table.number}.")
    if player_in.pk == player_out.pk:
        raise DomainError("same_player", "Swap two different players.")
    other = next((t for t in tables.values() if player_in.pk in t.players and not _is_fill(t, player_in.pk)), None)
    affected = [table] + ([other] if other is not None and other.pk != table.pk else [])
    if any(t.status == Table.Status.FINISHED for t in affected):
        raise DomainError("table_finished", "A finished table's result cannot change seats.", status=409)
    if round_.status != Round.Status.SEATED and not correction:
        raise DomainError("table_started", "This round has started: swap only as a director's correction.", status=409)
    if (
        other is None
        and not Registration.objects.filter(
            tournament=tournament, player=player_in, status=Registration.Status.ACTIVE
        ).exists()
    ):
        raise DomainError("not_registered", f"{player_in} is not registered.", status=409)
    seat_out = table.players.index(player_out.pk)
    if other is None:
        table.players[seat_out] = player_in.pk
        moves = [(table, seat_out, player_in)]
    elif other.pk == table.pk:
        seat_in = table.players.index(player_in.pk)
        table.players[seat_out], table.players[seat_in] = player_in.pk, player_out.pk
        moves = [(table, seat_out, player_in), (table, seat_in, player_out)]
    else:
        seat_in = other.players.index(player_in.pk)
        table.players[seat_out], other.players[seat_in] = player_in.pk, player_out.pk
        moves = [(table, seat_out, player_in), (other, seat_in, player_out)]
    for t, _, player in moves:
        if t.game_id:
            _refuse_a_player_who_knows_the_deal(round_, t, t.game_id, player)
    for t in affected:
        t.save(update_fields=["players"])
    for t, seat, player in moves:
        if t.game_id:
            game_reassign_seat(game_id=t.game_id, seat=seat, player=player)
    return table


def _refuse_a_player_who_knows_the_deal(round_: Round, table: Table, game_id: int, player: Player) -> None:
    """A duplicate round's tables of one size play the same deals: whoever has held a seat at
    another of them knows a hand of this one (the one they were dealt there), and perhaps how it
    was played. Seated here, they would see another seat's cards: refused until the round is over."""
    game = Game.objects.only("sealed", "rules").get(pk=game_id)
    if not game.sealed:
        return
    elsewhere = Game.objects.filter(pk__in=visibility.games_held_in_round(player.pk, round_.pk) - {game.pk})
    if any(other.players_count == game.players_count for other in elsewhere.only("rules")):
        raise DomainError(
            "knows_the_deal",
            f"{player} has played this round's deals at another table: at table {table.number} they would "
            "know another seat's cards.",
            status=409,
        )
    _refuse_a_watcher_of_the_round(round_, table, game, player)


def _refuse_a_watcher_of_the_round(round_: Round, table: Table, game: Game, player: Player) -> None:
    """Whoever was not dealt in when the round began may have seen how its other tables play these
    deals before a correction seated them: staff may watch its sealed tables, and its directors
    read the results of those finished (judged at the first seat a correction gave them in the
    round). Seated here, they could know another seat's cards: refused until the round is over."""
    user = player.user
    if user is None:
        return
    first_seated = visibility.first_seated_in_round(player.pk, round_.pk)
    if first_seated == visibility.ROUND_START:
        return  # one of the round's players all along: shown nothing of its other tables
    # Anyone else, even if a correction has seated them in the round since (at a table of another
    # size, or the lone table of one): what they could see until then stays known.
    others = [
        other
        for other in Table.objects.filter(round=round_, game__sealed=True).exclude(pk=table.pk).select_related("game")
        if other.game is not None and other.game.players_count == game.players_count
    ]
    ended = _roles_ended_since(user.pk, round_)
    if (user.is_staff or RoleEnded.Role.STAFF in ended) and others:
        raise DomainError(
            "may_know_the_deal",
            f"{player} has not sat in this round since its start and, as staff, may have watched its other "
            f"tables, which play these deals: at table {table.number} they could know another seat's cards.",
            status=409,
        )
    read_until = first_seated if isinstance(first_seated, datetime) else timezone.now()
    # the role as held, active or not: a director deactivated, seated, then let back in read the results too
    directing = user.is_staff or round_.tournament.league.directors.filter(pk=player.pk).exists()
    if not directing:
        # a director until a moment of the round, who read the results finished until then
        read_until = min(read_until, ended.get(RoleEnded.Role.DIRECTOR, read_until))
    if (directing or RoleEnded.Role.DIRECTOR in ended) and any(
        t.status == Table.Status.FINISHED and (t.finished_at is None or t.finished_at <= read_until) for t in others
    ):
        raise DomainError(
            "may_know_the_deal",
            f"{player} has not sat in this round since its start and may have read the results of its "
            f"finished tables, which played these deals: at table {table.number} they could know another seat's cards.",
            status=409,
        )


def _roles_ended_since(user_id: int, round_: Round) -> dict[str, datetime]:
    """The roles the user lost since ``round_`` started that let them see its sealed tables
    (staff watch them; the league's directors, and staff, read their results), each with when it
    last ended: what they could see then stays known after the role is gone."""
    if round_.started_at is None:
        return {}
    ended = RoleEnded.objects.filter(user_id=user_id, ended_at__gte=round_.started_at).filter(
        Q(role=RoleEnded.Role.STAFF) | Q(role=RoleEnded.Role.DIRECTOR, league_id=round_.tournament.league_id)
    )
    last = dict(ended.values("role").annotate(until=Max("ended_at")).values_list("role", "until"))
    staff_until = last.get(RoleEnded.Role.STAFF)
    if staff_until is not None:  # staff direct every league
        last[RoleEnded.Role.DIRECTOR] = max(staff_until, last.get(RoleEnded.Role.DIRECTOR, staff_until))
    return last


def _is_fill(table: Table, player_id: int) -> bool:
    return all(seat in table.cpu_fill for seat, pid in enumerate(table.players) if pid == player_id)


MAX_RULING_POINTS = 10_000


@transaction.atomic
def table_rule_score(
    *, table_id: int, seat: int, hearts_points: int, reason: str, ruled_by: Player | None = None
) -> Ruling:
    """A director's ruling: the finished table's seat now scores ``hearts_points`` (a penalty,
    a misdeal corrected), for ``reason``. Recorded as a ``Ruling`` row (never edited); the
    table's places and table points are worked out again from the adjusted totals, and with
    duplicate deals, once the round is over, its matchpoints too."""
    table = Table.objects.select_related("round").filter(pk=table_id).first()
    if table is None:
        raise DomainError("table_not_found", f"There is no table {table_id}.", status=404)
    tournament = _locked_tournament(table.round.tournament_id)
    table = Table.objects.select_for_update(of=("self",)).select_related("round").get(pk=table.pk)
    reason = (reason or "").strip()
    if not reason:
        raise DomainError("reason_required", "A ruling gives its reason.")
    if len(reason) > 500:
        raise DomainError("reason_too_long", "A ruling's reason is at most 500 characters.")
    if isinstance(hearts_points, bool) or not isinstance(hearts_points, int) or abs(hearts_points) > MAX_RULING_POINTS:
        raise DomainError("invalid_points", f"An adjusted score is a whole number up to {MAX_RULING_POINTS:,}.")
    if table.status != Table.Status.FINISHED:
        raise DomainError("table_not_finished", "Rule on a table once it has its result.", status=409)
    sealed = table.game_id is not None and Game.objects.filter(pk=table.game_id, sealed=True).exists()
    if sealed and ruled_by is not None and visibility.has_sat_in_round(ruled_by.user, table.round_id):
        # the ruling's answer states the table's score: a result the director's own table is playing for
        raise DomainError(
            "hidden_until_round_over",
            "You play in this round: rule on its tables once the round is over.",
            status=403,
        )
    results = {r.seat: r for r in table.results.select_for_update()}
    if seat not in results:
        raise DomainError("invalid_seat", f"Table {table.number} has no seat {seat}.")
    if seat in table.cpu_fill:
        raise DomainError("cpu_seat", "A CPU filling a seat is not ruled on.")
    result = results[seat]
    ruling = Ruling.objects.create(
        table=table,
        seat=seat,
        player_id=result.player_id,
        hearts_points_before=result.hearts_points,
        hearts_points=hearts_points,
        reason=reason,
        ruled_by=ruled_by,
    )
    result.hearts_points = hearts_points
    ordered = [results[s] for s in sorted(results)]
    points = scoring.table_points([r.hearts_points for r in ordered], points_by_place_of(tournament))
    for r, p in zip(ordered, points, strict=True):
        r.table_points = p
    TableResult.objects.bulk_update(ordered, ["hearts_points", "table_points"])
    if tournament.duplicate_deals and table.round.status == Round.Status.FINISHED:
        _matchpoints(table.round)
    return ruling


# --- playing CPU tables in-process (simulations, tests) ---------------------------------------


@transaction.atomic
def table_play_cpus(*, table_id: int, max_moves: int = 20_000) -> Table:
    """Play a table whose seats are all CPUs here and now, move by move through the game
    service, until the table has its result (one transaction: a simulation commits once a table).

    The game row is locked first and stays locked to the commit, so the seats read once here
    are the game's seats for every move; each move's engine state is the cached one its command
    left, and the table is checked only when a move ended the game or scored the round's last hand.
    """
    table = Table.objects.select_related("round__tournament").get(pk=table_id)
    tournament = table.round.tournament
    # the last hand that counts, if the round has a fixed number (else only the game's end counts)
    last_hand = tournament.hands_per_round if tournament.round_mode == Tournament.RoundMode.FIXED_HANDS else None
    game = lock_game(table.game_id)  # type: ignore[arg-type]  # a table played has its game
    by_cpu = {row.seat: row for row in game.seats.select_related("player") if row.played_by_cpu}

    def cpu_turn(state):
        seat = next((s for s in state.to_act if s in by_cpu), None)
        return seat, (state.view(seat) if seat is not None else None)

    check = True  # a table may already be over (or a fixed-hands table past its hands)
    for _ in range(max_moves):
        if check:
            competition_table_check(game_id=game.pk)
            table.refresh_from_db()
            if table.status == Table.Status.FINISHED:
                return table
        seat, view = (None, None)
        if game.status == Game.Status.ACTIVE:
            seat, view = eventstore.read_engine_game(game, cpu_turn)
        if seat is None:
            raise DomainError("not_cpu_table", f"Table {table.number}'s game awaits a human player.", status=409)
        cause = GameEvent.Cause.CPU
        result = game_execute_command(
            game_id=game.pk,
            seat=seat,
            command=bot_for_seat(game, by_cpu[seat]).decide(view),
            expected_seq=game.seq,
            command_id=cpu_command_id(cause, game, seat),
            cause=cause,
            savepoint=False,  # this transaction holds the game's lock and is given up whole on any error
        )
        game = result.game
        scored = [row.payload["hand_number"] for row in result.events if row.type == "HandScored"]
        check = game.status == Game.Status.FINISHED or bool(last_hand and scored and scored[-1] >= last_hand)
    raise DomainError("table_too_long", f"Table {table.number} did not finish in {max_moves} moves.", status=409)
