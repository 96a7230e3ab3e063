"""Table points, standings with tiebreaks (worked by hand), and duplicate matchpoints."""

import doctest
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.competitions import standings as standings_module
from tournaments.competitions.standings import (
    DEFAULT_POINTS_BY_PLACE,
    StandingRow,
    matchpoints,
    standings,
    table_points,
)


def test_the_docstring_examples_hold():
    assert doctest.testmod(standings_module).failed == 0


# --- table points -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "expected"),
    [
        # 3 players: 4/2/0
        ([10, 20, 30], [4, 2, 0]),
        ([30, 10, 20], [0, 4, 2]),
        ([10, 10, 30], [3, 3, 0]),
        ([10, 30, 30], [4, 1, 1]),
        ([50, 50, 50], [2, 2, 2]),
        # 4 players: 4/2/1/0
        ([5, 5, 9, 10], [3, 3, 1, 0]),
        ([5, 9, 9, 10], [4, 1.5, 1.5, 0]),
        ([9, 5, 10, 9], [1.5, 4, 0, 1.5]),
        ([5, 5, 5, 10], [7 / 3, 7 / 3, 7 / 3, 0]),
        ([0, 5, 5, 5], [4, 1, 1, 1]),
        ([5, 5, 9, 9], [3, 3, 0.5, 0.5]),
        ([7, 7, 7, 7], [1.75, 1.75, 1.75, 1.75]),
        # 5 players: 4/3/2/1/0
        ([1, 1, 2, 3, 4], [3.5, 3.5, 2, 1, 0]),
        ([0, 5, 5, 5, 9], [4, 2, 2, 2, 0]),
        ([0, 1, 2, 9, 9], [4, 3, 2, 0.5, 0.5]),
        ([3, 3, 3, 3, 3], [2, 2, 2, 2, 2]),
    ],
)
def test_tied_players_share_the_points_of_their_places(totals, expected):
    assert table_points(totals) == pytest.approx(expected)


def test_a_tie_for_first_is_half_a_win():
    winner, second = table_points([20, 40, 60, 80])[:2]
    assert table_points([20, 20, 60, 80])[0] == (winner + second) / 2 == 3


def test_table_points_are_configurable():
    assert table_points([10, 20, 30], (3, 1, 0)) == [3, 1, 0]
    assert table_points([10, 10, 20, 30], {4: (5, 3, 1, 0)}) == [4, 4, 1, 0]
    with pytest.raises(ValueError, match="needs 4 place points"):
        table_points([10, 20, 30, 40], (4, 2, 0))
    with pytest.raises(ValueError, match="no table points"):
        table_points([10, 20, 30], {4: (4, 2, 1, 0)})


@given(st.lists(st.integers(-26, 130), min_size=3, max_size=5))
def test_sharing_never_creates_or_loses_points(totals):
    points = table_points(totals)
    assert sum(points) == pytest.approx(sum(DEFAULT_POINTS_BY_PLACE[len(totals)]))
    for a, points_a in zip(totals, points, strict=True):
        for b, points_b in zip(totals, points, strict=True):
            assert (a < b) <= (points_a > points_b)
            assert (a == b) <= (points_a == points_b)


# --- standings: the worked example ------------------------------------------------------------

# 8 players, 2 rounds, two tables of 4 (table points 4/2/1/0), Hearts totals given by hand.
WORKED_EXAMPLE = [
    # Round 1
    {"A": 20, "B": 80, "C": 40, "D": 100},  # A 4, C 2, B 1, D 0
    {"E": 40, "F": 80, "G": 60, "H": 40},  # E and H share 1st and 2nd: 3 each; G 1, F 0
    # Round 2
    {"A": 60, "F": 40, "C": 40, "H": 100},  # F and C share 1st and 2nd: 3 each; A 1, H 0
    {"E": 100, "B": 60, "G": 30, "D": 80},  # G 4, B 2, D 1, E 0
]
# Table points:   A 4+1=5  C 2+3=5  G 1+4=5  F 0+3=3  H 3+0=3  B 1+2=3  E 3+0=3  D 0+1=1
# Hearts points:  A 80     C 80     G 90     F 120    H 140    B 140    E 140    D 180
# Opponents' strength (per game, the mean of the opponents' table points; summed):
#   A: (B3+C5+D1)/3 + (F3+C5+H3)/3 = 3 + 11/3 = 20/3     C: (A5+B3+D1)/3 + (A5+F3+H3)/3 = 20/3
#   G: (E3+F3+H3)/3 + (E3+B3+D1)/3 = 3 + 7/3 = 16/3
#   F: (E3+G5+H3)/3 + (A5+C5+H3)/3 = 11/3 + 13/3 = 8     H: (E3+F3+G5)/3 + (A5+F3+C5)/3 = 8
#   B: (A5+C5+D1)/3 + (E3+G5+D1)/3 = 11/3 + 3 = 20/3     E: (F3+G5+H3)/3 + (B3+G5+D1)/3 = 20/3
#   D: (A5+B3+C5)/3 + (E3+B3+G5)/3 = 13/3 + 11/3 = 8
# So: A and C are level on points, Hearts and strength; head to head (both games, where they
# met) A 4+1 = C 2+3 = 5, so they share 1st. G is 3rd on Hearts (90 > 80). F leads the 3-point
# players on Hearts; H beats B and E on strength (8 > 20/3); B beats E head to head (their one
# meeting, round 2: B 2, E 0). D last.
EXPECTED_WORKED_STANDINGS = [
    # rank label, player, table points, Hearts, strength, head to head
    ("=1", "A", 5, 80, Fraction(20, 3), 5),
    ("=1", "C", 5, 80, Fraction(20, 3), 5),
    ("3", "G", 5, 90, Fraction(16, 3), None),
    ("4", "F", 3, 120, 8, None),
    ("5", "H", 3, 140, 8, None),
    ("6", "B", 3, 140, Fraction(20, 3), 2),
    ("7", "E", 3, 140, Fraction(20, 3), 0),
    ("8", "D", 1, 180, 8, None),
]


def summary(rows):
    return [
        (row.rank_label, row.player, row.table_points, row.hearts_points, row.opponents_strength, row.head_to_head)
        for row in rows
    ]


def test_standings_match_the_worked_example():
    rows = standings(WORKED_EXAMPLE)
    assert summary(rows) == [
        (label, player, points, hearts, pytest.approx(float(strength)), h2h)
        for label, player, points, hearts, strength, h2h in EXPECTED_WORKED_STANDINGS
    ]
    assert [row.rank for row in rows] == [1, 1, 3, 4, 5, 6, 7, 8]
    assert all(row.games == 2 for row in rows)


def test_standings_do_not_depend_on_the_order_results_arrive_in():
    expected = standings(WORKED_EXAMPLE)
    for seed in range(5):
        shuffled = random.Random(seed).sample(WORKED_EXAMPLE, len(WORKED_EXAMPLE))
        shuffled = [dict(random.Random(seed).sample(list(table.items()), len(table))) for table in shuffled]
        assert standings(shuffled) == expected


def test_head_to_head_is_skipped_unless_every_tied_player_met_every_other():
    # Tables of 3 (4/2/0). X, Y and Z each end on 6 points, 20 Hearts, strength 7; X met Y
    # (game 1) and Y met Z (game 5) but X never met Z. Counting only the games where they met
    # would give Y 6 and X, Z 3 each, rewarding Y merely for having met both: they share 3rd.
    results = [
        {"X": 10, "Y": 10, "a": 20},  # X 3, Y 3, a 0
        {"Z": 10, "b": 20, "c": 10},  # Z 3, c 3, b 0
        {"d": 10, "e": 30, "f": 30},  # d 4, e 1, f 1
        {"X": 10, "d": 10, "b": 30},  # X 3, d 3, b 0
        {"Y": 10, "Z": 10, "e": 30},  # Y 3, Z 3, e 0
        {"a": 20, "c": 10, "f": 20},  # c 4, a 1, f 1
    ]
    rows = {row.player: row for row in standings(results)}
    # X: (Y6+a1)/2 + (d7+b0)/2 = 7; Y: (X6+a1)/2 + (Z6+e1)/2 = 7; Z: (b0+c7)/2 + (Y6+e1)/2 = 7
    assert {
        (rows[p].rank_label, rows[p].table_points, rows[p].hearts_points, rows[p].opponents_strength) for p in "XYZ"
    } == {("=3", 6, 20, 7)}
    assert rows["c"].rank_label == rows["d"].rank_label == "=1"


def test_head_to_head_is_applied_again_within_a_part_still_tied():
    # Tables of 3 (4/2/0), three rounds. P, Q and R each met the other two once.
    results = [
        {"P": 0, "Q": 20, "a": 20},  # P 4, Q 1, a 1
        {"R": 30, "b": 0, "c": 10},  # b 4, c 2, R 0
        {"Q": 30, "R": 10, "b": 0},  # b 4, R 2, Q 0
        {"P": 30, "a": 0, "c": 20},  # a 4, c 2, P 0
        {"R": 10, "P": 20, "c": 0},  # c 4, R 2, P 0
        {"Q": 0, "a": 0, "b": 20},  # Q 3, a 3, b 0
    ]
    # P, Q, R: 4 table points and 50 Hearts each; strength P (4+8)/2 + (8+8)/2 + (4+8)/2 = 20,
    # Q 6 + 6 + 8 = 20, R 8 + 6 + 6 = 20. Head to head (games 1, 3, 5): P 4+0 = 4, Q 1+0 = 1,
    # R 2+2 = 4, so Q is last of the three; P and R are still level, and in their one meeting
    # (game 5) R scored 2 and P 0. a and b (8 points, 20 Hearts, strength 16) split the same way
    # on their meeting in game 6; c has 8 points but 30 Hearts.
    rows = standings(results)
    assert [(row.rank_label, row.player, row.head_to_head) for row in rows] == [
        ("1", "a", 3),
        ("2", "b", 0),
        ("3", "c", None),
        ("4", "R", 4),
        ("5", "P", 4),
        ("6", "Q", 1),
    ]
    tied = {(row.table_points, row.hearts_points, row.opponents_strength) for row in rows[3:]}
    assert tied == {(4, 50, 20)}


def test_late_entries_appear_with_no_games_and_withdrawn_players_keep_their_results():
    rows = standings(WORKED_EXAMPLE[:2], players=["A", "Z"])
    # Z has 0 table points like D and F, and fewer Hearts points (none yet), so ranks above them.
    assert [row.player for row in rows] == list("AEHCGBZFD")
    assert rows[6] == StandingRow(
        rank=7,
        player="Z",
        table_points=0,
        hearts_points=0,
        opponents_strength=0,
        head_to_head=None,
        games=0,
        shared=False,
    )


def test_standings_of_nothing_is_empty():
    assert standings([]) == []
    assert [row.rank_label for row in standings([], players=[2, 1])] == ["=1", "=1"]


# --- matchpoints ------------------------------------------------------------------------------


def test_matchpoints_compare_each_seat_with_the_same_seat_at_other_tables_of_the_same_size():
    results = {
        ("round 1", 4): [
            [("A", 5), ("B", 10), ("C", 0), ("D", 11)],
            [("E", 5), ("F", 6), ("G", 13), ("H", 2)],
            [("I", 8), ("J", 10), ("K", 0), ("L", 8)],
        ],
        ("round 1", 3): [
            [("M", 10), ("N", 16), ("O", 0)],
            [("P", 12), ("Q", 4), ("R", 10)],
        ],
        ("round 2", 4): [
            [("A", 3), ("F", 9), ("K", 20), ("H", 0)],
            [("E", 3), ("B", 2), ("G", 1), ("L", 30)],
        ],
    }
    assert matchpoints(results) == {
        # round 1, seat 0: A 5, E 5, I 8 -> A and E beat I and tie each other; round 2: A ties E
        "A": 1.5 + 0.5,
        "E": 1.5 + 0.5,
        "I": 0,
        # seat 1: B 10, F 6, J 10 -> F beats both, B and J tie; round 2: B 2 beats F 9
        "B": 0.5 + 1,
        "F": 2 + 0,
        "J": 0.5,
        # seat 2: C 0, G 13, K 0; round 2: G 1 beats K 20
        "C": 1.5,
        "G": 0 + 1,
        "K": 1.5 + 0,
        # seat 3: D 11, H 2, L 8; round 2: H 0 beats L 30
        "D": 0,
        "H": 2 + 1,
        "L": 1 + 0,
        # the tables of 3 are compared only with each other
        "M": 1,
        "P": 0,
        "N": 0,
        "Q": 1,
        "O": 1,
        "R": 0,
    }


def test_a_lone_table_earns_no_matchpoints():
    assert matchpoints({"r1": [[("A", 5), ("B", 10), ("C", 11)]]}) == {"A": 0, "B": 0, "C": 0}
