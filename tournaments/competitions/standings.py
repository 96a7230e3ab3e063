"""Scoring a club tournament: table points, standings with tiebreaks, and duplicate matchpoints.

Pure Python (no Django). A table's result is a mapping ``{player: Hearts total}`` for the game
played at that table (lower is better). Table points are computed exactly (fractions) so that
shared places such as 7/3 add up without rounding, and reported as floats.

>>> table_points([40, 40, 75, 102])
[3.0, 3.0, 1.0, 0.0]
>>> table_points([55, 20, 55])
[1.0, 4.0, 1.0]
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

DEFAULT_POINTS_BY_PLACE: dict[int, tuple[int, ...]] = {
    3: (4, 2, 0),
    4: (4, 2, 1, 0),
    5: (4, 3, 2, 1, 0),
}
"""Table points for 1st, 2nd, ... by table size. A win is always 4 and last place always 0, so a
win means the same at every table; the middle places step down evenly."""

PointsByPlace = Sequence[float] | Mapping[int, Sequence[float]] | None


def _points_for_size(size: int, points_by_place: PointsByPlace) -> Sequence[float]:
    if points_by_place is None:
        points_by_place = DEFAULT_POINTS_BY_PLACE
    if isinstance(points_by_place, Mapping):
        if size not in points_by_place:
            raise ValueError(f"no table points configured for a table of {size}")
        points_by_place = points_by_place[size]
    if len(points_by_place) != size:
        raise ValueError(f"a table of {size} needs {size} place points, got {list(points_by_place)}")
    return points_by_place


def _exact_table_points(totals: Sequence[int], points_by_place: PointsByPlace) -> list[Fraction]:
    place_points = [Fraction(points) for points in _points_for_size(len(totals), points_by_place)]
    order = sorted(range(len(totals)), key=lambda seat: totals[seat])
    points = [Fraction(0)] * len(totals)
    first_place = 0
    for _, same_total in itertools.groupby(order, key=lambda seat: totals[seat]):
        tied = list(same_total)
        shared = place_points[first_place : first_place + len(tied)]
        for seat in tied:
            points[seat] = sum(shared, Fraction(0)) / len(tied)
        first_place += len(tied)
    return points


def table_points(totals: Sequence[int], points_by_place: PointsByPlace = None) -> list[float]:
    """Table points for each player (in the order given) from their Hearts totals at one table.

    Places go by the lowest total; tied players share the points of the places they occupy
    evenly, so a 2-way tie for 1st at 4/2/1/0 gives 3 each: a tie is half a win.
    ``points_by_place`` is one sequence for this table, or a mapping by table size; the default
    is ``DEFAULT_POINTS_BY_PLACE``.
    """
    return [float(points) for points in _exact_table_points(totals, points_by_place)]


@dataclass(frozen=True)
class StandingRow(Generic[P]):
    """One line of the standings. ``head_to_head`` is None unless it was needed to split a tie."""

    rank: int
    player: P
    table_points: float
    hearts_points: int
    opponents_strength: float
    head_to_head: float | None
    games: int
    shared: bool = False

    @property
    def rank_label(self) -> str:
        """ "3", or "=3" when the rank is shared."""
        return f"={self.rank}" if self.shared else str(self.rank)


def _display_order(players: Iterable[P]) -> dict[P, int]:
    """Players still tied after every tiebreak are listed by id (or by first appearance)."""
    players = list(dict.fromkeys(players))
    with contextlib.suppress(TypeError):
        players = sorted(players)  # type: ignore[type-var]  # unorderable players: TypeError, kept as given
    return {player: i for i, player in enumerate(players)}


def _group(players: list[P], key) -> list[list[P]]:
    return [list(group) for _, group in itertools.groupby(sorted(players, key=key), key=key)]


def standings(
    results: Iterable[Mapping[P, int]],
    *,
    points_by_place: PointsByPlace = None,
    players: Iterable[P] = (),
) -> list[StandingRow[P]]:
    """The standings after the given table results (``{player: Hearts total}`` per table).

    Order: most table points; then the tiebreaks, in this order:

    1. fewest Hearts points in total;
    2. opponents' strength, Buchholz-style: for each game, the average final table points of
       the opponents at that table, summed over the player's games (averaged per game because
       tables of 3, 4 and 5 have different numbers of opponents);
    3. head to head: the table points each tied player scored in the games where they met
       another of the tied players. Used only when every two of the tied players have met (so
       nobody loses a tiebreak for a game they never had the chance to play); when it splits
       a group, it is applied again within each part that is still tied.

    Players still tied share the rank ("=3") and are listed by id. ``players`` adds registered
    players who have no result yet (late entries), with zero points.
    """
    tables = [dict(result) for result in results]
    games = [
        dict(zip(totals, _exact_table_points(list(totals.values()), points_by_place), strict=True)) for totals in tables
    ]
    table_points_total: defaultdict = defaultdict(Fraction)
    hearts: Counter = Counter()
    n_games: Counter = Counter()
    all_players = list(players)
    for game, totals in zip(games, tables, strict=True):
        for player, points in game.items():
            table_points_total[player] += points
            hearts[player] += totals[player]
            n_games[player] += 1
            all_players.append(player)

    strength: defaultdict = defaultdict(Fraction)
    for game in games:
        for player in game:
            opponents = [table_points_total[o] for o in game if o != player]
            strength[player] += sum(opponents) / len(opponents)

    order = _display_order(all_players)
    ranked = sorted(order, key=lambda p: (-table_points_total[p], hearts[p], -strength[p], order[p]))

    head_to_head: dict = {}
    tied_groups: list[list] = []
    for _, same_key in itertools.groupby(ranked, key=lambda p: (table_points_total[p], hearts[p], strength[p])):
        tied_groups.extend(_split_by_head_to_head(list(same_key), games, head_to_head, order))

    rows = []
    position = 1
    for group in tied_groups:
        for player in group:
            rows.append(
                StandingRow(
                    rank=position,
                    player=player,
                    table_points=float(table_points_total[player]),
                    hearts_points=hearts[player],
                    opponents_strength=float(strength[player]),
                    head_to_head=float(head_to_head[player]) if player in head_to_head else None,
                    games=n_games[player],
                    shared=len(group) > 1,
                )
            )
        position += len(group)
    return rows


def _split_by_head_to_head(group: list[P], games: list[dict], head_to_head: dict, order: dict) -> list[list[P]]:
    """Split a tied group by head to head (see ``standings``), best part first."""
    if len(group) < 2:
        return [group]
    members = set(group)
    met = {frozenset(pair) for game in games for pair in itertools.combinations(members & game.keys(), 2)}
    if len(met) < len(group) * (len(group) - 1) // 2:
        return [sorted(group, key=order.__getitem__)]
    scores = {
        player: sum((game[player] for game in games if player in game and len(members & game.keys()) > 1), Fraction(0))
        for player in group
    }
    for player, score in scores.items():
        head_to_head.setdefault(player, score)
    parts = _group(group, key=lambda p: -scores[p])
    if len(parts) == 1:
        return [sorted(group, key=order.__getitem__)]
    return [split for part in parts for split in _split_by_head_to_head(part, games, head_to_head, order)]


def matchpoints(results_by_deal: Mapping[Hashable, Iterable[Sequence[tuple[P, int]]]]) -> dict[P, float]:
    """Matchpoints for duplicate deals.

    ``results_by_deal`` maps a set of deals (e.g. round 2's deals for tables of 4) to the tables
    that played them, each a sequence of ``(player, Hearts points)`` in seat order. Each seat's
    result is compared with the same seat at every other table of the same size that played
    those deals: 1 matchpoint per table beaten (fewer Hearts points), 0.5 per tie. Returns the
    total per player, summed over deal sets.
    """
    points: defaultdict = defaultdict(float)
    for tables in results_by_deal.values():
        by_size = defaultdict(list)
        for table in tables:
            by_size[len(table)].append(list(table))
        for same_size in by_size.values():
            for seat in range(len(same_size[0])):
                at_seat = [table[seat] for table in same_size]
                for i, (player, hearts) in enumerate(at_seat):
                    others = [other for j, (_, other) in enumerate(at_seat) if j != i]
                    points[player] += sum(hearts < other for other in others) + 0.5 * sum(
                        hearts == other for other in others
                    )
    return dict(points)
