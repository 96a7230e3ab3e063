"""Reads for club competitions: tournaments, their standings, rounds and tables."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from django.db.models import Count, Prefetch, Q

from tournaments.competitions import standings as scoring
from tournaments.games import visibility
from tournaments.models import League, Player, Registration, Round, Ruling, Table, TableResult, Tournament


def tournaments_list(*, league_id: int | None = None, status: str | None = None):
    """Tournaments, newest first, each with ``players_count`` (its active registrations)."""
    # Meta.ordering (newest first), spelled out: Django leaves it out of a GROUP BY query (the
    # annotation), and an unordered list can repeat or skip tournaments between pages.
    tournaments = (
        Tournament.objects.select_related("league__club", "season")
        .annotate(players_count=Count("registrations", filter=Q(registrations__status=Registration.Status.ACTIVE)))
        .order_by(*Tournament._meta.ordering)  # type: ignore[misc]  # Tournament's Meta sets it; stubs: Optional
    )
    if league_id is not None:
        tournaments = tournaments.filter(league_id=league_id)
    if status:
        tournaments = tournaments.filter(status=status)
    return tournaments


def directs(user, league_id: int | None = None) -> bool:
    """Whether this user runs tournaments: staff run every league's; a league's directors (its
    ``directors``) run that league's, and any league's when ``league_id`` is None (the console)."""
    if not (user.is_authenticated and user.is_active):
        return False
    if user.is_staff:
        return True
    player = getattr(user, "player", None)
    if player is None:
        return False
    led = player.leagues_directed.all()
    return led.filter(pk=league_id).exists() if league_id is not None else led.exists()


def leagues_directed(user):
    """The leagues this user may run tournaments in (every league for staff)."""
    leagues = League.objects.select_related("club").order_by("club__name", "name")
    if user.is_staff:
        return leagues
    player = getattr(user, "player", None)
    return leagues.filter(directors=player) if player is not None else leagues.none()


def points_by_place_of(tournament: Tournament) -> dict[int, Sequence[float]] | None:
    """The tournament's table points by table size (None: ``standings.DEFAULT_POINTS_BY_PLACE``)."""
    if not tournament.points_by_place:
        return None
    return {
        **scoring.DEFAULT_POINTS_BY_PLACE,
        **{int(k): list(v) for k, v in tournament.points_by_place.items()},
    }


@dataclass(frozen=True)
class StandingLine:
    rank: int
    rank_label: str
    player_id: int
    name: str
    table_points: float
    hearts_points: int
    opponents_strength: float
    head_to_head: float | None
    matchpoints: float | None
    games: int
    withdrawn: bool

    def to_dict(self) -> dict:
        return asdict(self)


def _finished_results(tournament: Tournament):
    """Results of finished tables; with duplicate deals, of finished rounds only (a table's result
    tells the tables still playing its deals about them)."""
    results = TableResult.objects.filter(table__round__tournament=tournament, table__status=Table.Status.FINISHED)
    if tournament.duplicate_deals:
        results = results.filter(table__round__status=Round.Status.FINISHED)
    return results.select_related("table").order_by("table__round__number", "table__number", "seat")


def standings_for_tournament(tournament: Tournament) -> list[StandingLine]:
    """The standings after every finished table: table points, then Hearts points, opponents'
    strength and head to head (``tournaments.competitions.standings``). CPU fill seats count for the places
    at their table but are not listed; registered players with no result yet are (zero points)."""
    by_table: dict[int, dict[int, int]] = defaultdict(dict)
    matchpoints: dict[int, float] = defaultdict(float)
    duplicate = tournament.duplicate_deals
    for result in _finished_results(tournament):
        # A CPU filling seats may sit at many tables: each fill seat is its own (negative) entrant.
        key = -result.pk if result.cpu_fill else result.player_id
        by_table[result.table_id][key] = result.hearts_points
        if duplicate and not result.cpu_fill and result.matchpoints is not None:
            matchpoints[result.player_id] += result.matchpoints
    registrations = {r.player_id: r for r in tournament.registrations.select_related("player")}
    rows = scoring.standings(
        by_table.values(), points_by_place=points_by_place_of(tournament), players=sorted(registrations)
    )
    names = {r.player_id: r.player.display_name for r in registrations.values()}
    missing = {row.player for row in rows if row.player > 0 and row.player not in names}
    if missing:
        names.update(Player.objects.filter(pk__in=missing).values_list("pk", "display_name"))
    # CPU fill seats count for the places at their tables, but are never ranked themselves: the
    # players are ranked among themselves (a CPU ahead of them does not push them down a place).
    people = [row for row in rows if row.player > 0]
    tied = Counter(row.rank for row in people)
    ranks, position = {}, 1
    for row in people:
        if row.rank not in ranks:
            ranks[row.rank] = position
            position += tied[row.rank]
    lines = []
    for row in people:
        registration = registrations.get(row.player)
        rank = ranks[row.rank]
        lines.append(
            StandingLine(
                rank=rank,
                rank_label=f"={rank}" if tied[row.rank] > 1 else str(rank),
                player_id=row.player,
                name=names.get(row.player, ""),
                table_points=row.table_points,
                hearts_points=row.hearts_points,
                opponents_strength=round(row.opponents_strength, 4),
                head_to_head=row.head_to_head,
                matchpoints=matchpoints.get(row.player, 0.0) if duplicate else None,
                games=row.games,
                withdrawn=registration is not None and registration.status == Registration.Status.WITHDRAWN,
            )
        )
    return lines


def rounds_for_tournament(tournament: Tournament):
    return tournament.rounds.annotate(tables_count=Count("tables")).order_by("number")


def tables_for_round(tournament: Tournament, number: int):
    """The round's tables with their results and game, or None when there is no such round."""
    round_ = Round.objects.filter(tournament=tournament, number=number).first()
    if round_ is None:
        return None
    return (
        round_.tables.select_related("game")
        .prefetch_related(
            Prefetch("results", queryset=TableResult.objects.select_related("player")),
            Prefetch("rulings", queryset=Ruling.objects.order_by("id")),
        )
        .order_by("number")
    )


def sees_sealed_results(user, tournament: Tournament, round_id: int | None) -> bool:
    """Whether ``user`` sees the results of the round's sealed tables (their deals are still
    being played at other tables) before the round is over: the tournament's directors who play
    at none of the round's tables (``visibility.has_sat_in_round``)."""
    if user is None or not directs(user, tournament.league_id):
        return False
    return not visibility.has_sat_in_round(user, round_id)


def rulings_for_tournament(tournament: Tournament, viewer) -> list[Ruling]:
    """The directors' rulings of a tournament, oldest first, but those on a sealed table for a
    ``viewer`` who may not see its results yet (``sees_sealed_results``): a ruling states the
    score it replaced and the one it gives."""
    rulings = list(
        Ruling.objects.filter(table__round__tournament=tournament)
        .select_related("table__round", "table__game")
        .order_by("id")
    )
    sees: dict[int, bool] = {}
    for ruling in rulings:
        table = ruling.table
        if table.game is not None and table.game.sealed and table.round_id not in sees:
            sees[table.round_id] = sees_sealed_results(viewer, tournament, table.round_id)
    return [r for r in rulings if sees.get(r.table.round_id, True) or not (r.table.game and r.table.game.sealed)]


def table_cards(round_: Round) -> list[dict]:
    """A round's printable table cards: each table and its seats in order."""
    tables = list(round_.tables.order_by("number"))
    names = player_names(pid for table in tables for pid in table.players)
    return [
        {
            "table": table,
            "seats": [
                {"seat": seat, "name": names.get(pid, "?"), "cpu": seat in table.cpu_fill}
                for seat, pid in enumerate(table.players)
            ],
        }
        for table in tables
    ]


def results_sheet(tournament: Tournament, viewer=None) -> dict:
    """The printable results sheet: every round's tables with results and rulings, and the
    standings. A round of duplicate deals still playing is ``hidden`` to a ``viewer`` who plays
    in it (a director at a table): its other tables' results follow the deals they are playing."""
    rounds = [
        {
            "round": round_,
            "tables": list(tables_for_round(tournament, round_.number)),
            "hidden": tournament.duplicate_deals
            and round_.status != Round.Status.FINISHED
            and not sees_sealed_results(viewer, tournament, round_.pk),
        }
        for round_ in tournament.rounds.order_by("number")
    ]
    return {"tournament": tournament, "rounds": rounds, "lines": standings_for_tournament(tournament)}


def player_names(player_ids) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=set(player_ids)).values_list("pk", "display_name"))


def results_rows(tournament: Tournament) -> list[dict]:
    """One row per seat of every finished table: the results export (CSV / JSON lines)."""
    rows = []
    results = TableResult.objects.filter(table__round__tournament=tournament)
    if tournament.duplicate_deals:
        results = results.filter(table__round__status=Round.Status.FINISHED)
    results = results.select_related("table__round", "player").order_by("table__round__number", "table__number", "seat")
    rulings = {
        (ruling.table_id, ruling.seat): ruling.reason
        for ruling in Ruling.objects.filter(table__round__tournament=tournament).order_by("id")
    }  # the latest ruling on a seat is the one in force
    for result in results:
        table = result.table
        rows.append(
            {
                "tournament": tournament.pk,
                "round": table.round.number,
                "table": table.number,
                "game": table.game_id,
                "seat": result.seat,
                "player_id": result.player_id,
                "player": result.player.display_name,
                "cpu_fill": result.cpu_fill,
                "hearts_points": result.hearts_points,
                "table_points": result.table_points,
                "matchpoints": result.matchpoints,
                "hands_played": result.hands_played,
                "ruling": rulings.get((result.table_id, result.seat), ""),
            }
        )
    return rows


RESULT_FIELDS = [
    "tournament",
    "round",
    "table",
    "game",
    "seat",
    "player_id",
    "player",
    "cpu_fill",
    "hearts_points",
    "table_points",
    "matchpoints",
    "hands_played",
    "ruling",
]
