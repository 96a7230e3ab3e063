"""Seating for club tournaments: how many tables of which size, and who sits where.

Pure Python (no Django) so the services can call it and the tests run fast. Players are any
hashable ids; a table is a list of player ids in seat order 0..k-1 (seat 0 deals first) and a
round is a list of tables. Every function that draws lots takes a ``random.Random`` or an int
seed, so a round can be seated again identically from the stored seed.

>>> table_sizes(10)
[4, 3, 3]
>>> table_sizes(10, prefer="larger")
[5, 5]
>>> seat_random(range(7), table_sizes(7), rng=1)
[[3, 6, 5, 2], [0, 4, 1]]
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

P = TypeVar("P", bound=Hashable)
Table = list
Round = list

TABLE_SIZES = (3, 4, 5)
"""Hearts is played by 3, 4 or 5 players (docs/rules.md)."""

Prefer = Literal["smaller", "larger"]


def _check_layout_settings(preferred: int, allow: Iterable[int], prefer: str) -> tuple[int, ...]:
    allowed = tuple(sorted(set(allow)))
    if not allowed or not set(allowed) <= set(TABLE_SIZES):
        raise ValueError(f"table sizes must be among {TABLE_SIZES}, got {allowed}")
    if preferred not in allowed:
        raise ValueError(f"the preferred table size {preferred} is not among the allowed sizes {allowed}")
    if prefer not in ("smaller", "larger"):
        raise ValueError(f"prefer must be 'smaller' or 'larger', got {prefer!r}")
    return allowed


def _partitions(n: int, sizes: tuple[int, ...]) -> Iterator[dict[int, int]]:
    """Every way to write n as a sum of the given sizes, as {size: count}."""
    if not sizes:
        if n == 0:
            yield {}
        return
    size, rest = sizes[0], sizes[1:]
    for count in range(n // size + 1):
        for partition in _partitions(n - count * size, rest):
            yield {size: count, **partition}


def table_sizes(
    n_players: int, preferred: int = 4, allow: Iterable[int] = TABLE_SIZES, prefer: Prefer = "smaller"
) -> list[int]:
    """Split n players into tables of the allowed sizes, largest tables first.

    Uses as many tables of the preferred size as possible while the other tables are all on the
    side the director prefers (3s for "smaller", 5s for "larger"); only when that is impossible
    does it use the other side too. Raises ValueError when no layout exists (e.g. 2 players):
    whether to fill with CPUs is the caller's decision, see ``cpu_fill_needed``.

    >>> table_sizes(13), table_sizes(13, prefer="larger"), table_sizes(5)
    ([4, 3, 3, 3], [5, 4, 4], [5])
    """
    allowed = _check_layout_settings(preferred, allow, prefer)
    if n_players < min(allowed):
        raise ValueError(
            f"{n_players} player(s) cannot fill a table: Hearts needs {min(allowed)} to {max(allowed)} "
            "players at a table (register more players or allow CPU fill)"
        )

    def wrong_side(size: int) -> bool:
        return size > preferred if prefer == "smaller" else size < preferred

    def badness(partition: dict[int, int]) -> tuple:
        n_tables = sum(partition.values())
        return (
            sum(count for size, count in partition.items() if wrong_side(size)),
            -partition.get(preferred, 0),
            sum(abs(size - preferred) * count for size, count in partition.items()),
            -n_tables if prefer == "smaller" else n_tables,
        )

    best = min(_partitions(n_players, allowed), key=badness, default=None)
    if best is None:
        raise ValueError(
            f"{n_players} players cannot be split into tables of {allowed} (allow CPU fill or other sizes)"
        )
    return sorted((size for size, count in best.items() for _ in range(count)), reverse=True)


def cpu_fill_needed(
    n_players: int, preferred: int = 4, allow: Iterable[int] = TABLE_SIZES, *, only_preferred: bool = True
) -> int:
    """How many CPUs to add so the players fit tables of the preferred size only (the default), or,
    with ``only_preferred=False``, so that any layout of the allowed sizes exists.

    >>> cpu_fill_needed(10), cpu_fill_needed(10, only_preferred=False), cpu_fill_needed(2)
    (2, 0, 2)
    """
    allowed = _check_layout_settings(preferred, allow, "smaller")
    if n_players <= 0:
        return 0
    sizes = (preferred,) if only_preferred else allowed
    cpus = 0
    while next(_partitions(n_players + cpus, sizes), None) is None:
        cpus += 1
    return cpus


# --- validation and metrics -------------------------------------------------------------------


def _as_rng(rng: random.Random | int) -> random.Random:
    return rng if isinstance(rng, random.Random) else random.Random(rng)


def _check_players(players: Sequence[P], sizes: Sequence[int]) -> None:
    if len(set(players)) != len(players):
        repeated = [p for p, count in Counter(players).items() if count > 1]
        raise ValueError(f"players listed more than once: {repeated}")
    if any(size not in TABLE_SIZES for size in sizes):
        raise ValueError(f"table sizes must be among {TABLE_SIZES}, got {list(sizes)}")
    if sum(sizes) != len(players):
        raise ValueError(f"{len(players)} players do not fit tables of {list(sizes)} ({sum(sizes)} seats)")


def _cut(players: Sequence[P], sizes: Sequence[int]) -> Round:
    it = iter(players)
    return [list(itertools.islice(it, size)) for size in sizes]


def meeting_pairs(tables: Iterable[Sequence[P]]) -> Counter:
    """Pairs of players who sit at the same table, as ``Counter({frozenset({a, b}): 1, ...})``."""
    return Counter(frozenset(pair) for table in tables for pair in itertools.combinations(table, 2))


def repeat_meetings(rounds: Iterable[Iterable[Sequence[P]]]) -> int:
    """How many times, over the rounds, two players met again after their first meeting."""
    met: Counter[frozenset[P]] = Counter()
    for tables in rounds:
        met.update(meeting_pairs(tables))
    return sum(count - 1 for count in met.values())


@dataclass
class SeatingHistory:
    """Who has met whom and which seat numbers each player has had, over the rounds so far."""

    meetings: Counter = field(default_factory=Counter)
    seats: defaultdict = field(default_factory=lambda: defaultdict(Counter))

    @classmethod
    def from_rounds(cls, rounds: Iterable[Iterable[Sequence[P]]]) -> SeatingHistory:
        history = cls()
        for tables in rounds:
            history.record(tables)
        return history

    def record(self, tables: Iterable[Sequence[P]]) -> None:
        tables = [list(table) for table in tables]
        self.meetings.update(meeting_pairs(tables))
        for table in tables:
            for seat, player in enumerate(table):
                self.seats[player][seat] += 1

    def copy(self) -> SeatingHistory:
        seats = defaultdict(Counter, {player: Counter(seats) for player, seats in self.seats.items()})
        return SeatingHistory(meetings=Counter(self.meetings), seats=seats)

    def times_met(self, a: P, b: P) -> int:
        return self.meetings[frozenset((a, b))]


def _as_history(history: SeatingHistory | Mapping | Iterable | None) -> SeatingHistory:
    """Accept a SeatingHistory, a Counter of pairs, or any collection of pairs who met."""
    if isinstance(history, SeatingHistory):
        return history
    if history is None:
        return SeatingHistory()
    if isinstance(history, Mapping):
        return SeatingHistory(meetings=Counter({frozenset(pair): count for pair, count in history.items()}))
    return SeatingHistory(meetings=Counter(frozenset(pair) for pair in history))


def assign_seats(tables: Iterable[Sequence[P]], history: SeatingHistory, rng: random.Random | int) -> Round:
    """Order each table so players get the seat numbers they have had least often.

    Within a table every order is tried (at most 5! = 120); equally good orders are drawn by lot.
    """
    rng = _as_rng(rng)
    seated = []
    for table in tables:
        orders = list(itertools.permutations(table))
        costs = [sum(history.seats[p][seat] for seat, p in enumerate(order)) for order in orders]
        lowest = min(costs)
        seated.append(list(rng.choice([o for o, c in zip(orders, costs, strict=True) if c == lowest])))
    return seated


# --- formats ----------------------------------------------------------------------------------


def seat_random(players: Iterable[P], sizes: Sequence[int], rng: random.Random | int) -> Round:
    """Random seating (round 1, or every round of a social evening)."""
    players = list(players)
    _check_players(players, sizes)
    _as_rng(rng).shuffle(players)
    return _cut(players, sizes)


def seat_by_rating(
    players_with_rating: Mapping[P, float] | Iterable[tuple[P, float]],
    sizes: Sequence[int],
    *,
    spread: bool = True,
) -> Round:
    """Round 1 by rating. By default the strongest players are spread over the tables (a snake
    draft: 1st to table 1, 2nd to table 2, ..., then back), so no table is stacked and the top
    players don't knock each other out before the Swiss rounds sort the field. With
    ``spread=False`` players of similar rating are grouped (strongest at table 1).
    Equal ratings keep the given order.
    """
    if isinstance(players_with_rating, Mapping):
        players_with_rating = players_with_rating.items()
    pairs = list(players_with_rating)
    ranked = [player for player, _ in sorted(pairs, key=lambda pair: -pair[1])]
    _check_players(ranked, sizes)
    if not spread:
        return _cut(ranked, sizes)
    tables: Round = [[] for _ in sizes]
    order = list(range(len(sizes)))
    players = iter(ranked)
    while any(len(table) < size for table, size in zip(tables, sizes, strict=True)):
        for t in order:
            if len(tables[t]) < sizes[t]:
                tables[t].append(next(players))
        order.reverse()
    return tables


def seat_swiss(
    standings: Sequence[P],
    history: SeatingHistory | Mapping | Iterable | None,
    sizes: Sequence[int],
    rng: random.Random | int,
    *,
    repeat_weight: float = 8.0,
    spread_weight: float = 1.0,
    window: int = 3,
    max_passes: int = 50,
) -> Round:
    """A Swiss round: players of similar standing together, few repeat meetings, rotating seats.

    ``standings`` lists every player to seat, best first (late entries at the bottom). Players
    fill the tables in that order, then a local search swaps players between tables up to
    ``window`` tables apart while that lowers the cost
    ``repeat_weight * (earlier meetings of the pairs at a table) + spread_weight * (last place
    - first place in the standings at that table)``. With the defaults, avoiding one repeat is
    worth seating a player up to about 8 standings places away from their group. Finally each
    table is ordered so players get the seat numbers they have had least often.
    """
    rng = _as_rng(rng)
    players = list(standings)
    _check_players(players, sizes)
    history = _as_history(history)
    place = {player: i for i, player in enumerate(players)}
    met = history.meetings

    def cost(table: list) -> float:
        repeats = sum(met[frozenset(pair)] for pair in itertools.combinations(table, 2)) if met else 0
        places = [place[p] for p in table]
        return repeat_weight * repeats + spread_weight * (max(places) - min(places))

    tables = _cut(players, sizes)
    costs = [cost(table) for table in tables]
    neighbours = [(t, u) for t in range(len(tables)) for u in range(t + 1, min(len(tables), t + 1 + window))]
    for _ in range(max_passes):
        improved = False
        for t, u in neighbours:
            for i, j in itertools.product(range(len(tables[t])), range(len(tables[u]))):
                a, b = tables[t][i], tables[u][j]
                tables[t][i], tables[u][j] = b, a
                new_t, new_u = cost(tables[t]), cost(tables[u])
                if new_t + new_u < costs[t] + costs[u] - 1e-9:
                    costs[t], costs[u] = new_t, new_u
                    improved = True
                else:
                    tables[t][i], tables[u][j] = a, b
        if not improved:
            break
    for table in tables:
        table.sort(key=place.__getitem__)
    return assign_seats(tables, history, rng)


def seat_balanced_rotation(
    players: Iterable[P],
    n_rounds: int,
    sizes: Sequence[int],
    rng: random.Random | int,
    *,
    history: SeatingHistory | None = None,
    effort: int = 20,
) -> list[Round]:
    """A fixed schedule of ``n_rounds`` rounds for a small group that spreads who meets whom
    (social-golfer style): it keeps the most times any pair meets, and then the repeats, low.

    Built round by round (best of ``effort`` random starts, each improved by swapping players
    between tables), then polished by re-optimising each round against all the others. The cost
    of seating a pair together grows fourfold with every earlier meeting, so the search prefers
    many pairs meeting twice over one pair meeting three times. Seats rotate as in Swiss rounds.
    Pass the ``history`` of rounds already played to plan the rest of an evening again after a
    withdrawal or a late entry. Meant for groups up to a few dozen players; larger fields should
    use Swiss or random rounds.
    """
    rng = _as_rng(rng)
    players = list(players)
    _check_players(players, sizes)
    if n_rounds < 0:
        raise ValueError("n_rounds must not be negative")

    def pair_cost(times: int) -> int:
        return 4**times

    def table_cost(table: list, met: Counter) -> int:
        return sum(pair_cost(met[frozenset(pair)]) for pair in itertools.combinations(table, 2))

    def improve(tables: Round, met: Counter) -> Round:
        costs = [table_cost(table, met) for table in tables]
        improved = True
        while improved:
            improved = False
            for t, u in itertools.combinations(range(len(tables)), 2):
                for i, j in itertools.product(range(len(tables[t])), range(len(tables[u]))):
                    a, b = tables[t][i], tables[u][j]
                    tables[t][i], tables[u][j] = b, a
                    new_t, new_u = table_cost(tables[t], met), table_cost(tables[u], met)
                    if new_t + new_u < costs[t] + costs[u]:
                        costs[t], costs[u] = new_t, new_u
                        improved = True
                    else:
                        tables[t][i], tables[u][j] = a, b
        return tables

    def best_round(met: Counter) -> tuple[int, Round]:
        candidates = []
        for _ in range(effort):
            tables = improve(seat_random(players, sizes, rng), met)
            candidates.append((sum(table_cost(table, met) for table in tables), tables))
        return min(candidates, key=lambda candidate: candidate[0])

    history = history or SeatingHistory()
    met = Counter(history.meetings)
    schedule: list[Round] = []
    for _ in range(n_rounds):
        _, tables = best_round(met)
        schedule.append(tables)
        met.update(meeting_pairs(tables))

    for _ in range(3):
        for r, tables in enumerate(schedule):
            met.subtract(meeting_pairs(tables))
            current = sum(table_cost(table, met) for table in tables)
            cost, candidate = best_round(met)
            if cost < current:
                schedule[r] = tables = candidate
            met.update(meeting_pairs(tables))

    planned = history.copy()
    seated_schedule = []
    for tables in schedule:
        seated = assign_seats(tables, planned, rng)
        planned.record(seated)
        seated_schedule.append(seated)
    return seated_schedule


def final_table(standings: Sequence[P], n: int = 4) -> Round:
    """The final: the top ``n`` of the standings at one table, the leader in seat 0."""
    if n not in TABLE_SIZES:
        raise ValueError(f"a final table seats {TABLE_SIZES[0]} to {TABLE_SIZES[-1]} players, not {n}")
    if len(standings) < n:
        raise ValueError(f"a final of {n} needs {n} players, the standings have {len(standings)}")
    return [list(standings[:n])]
