"""Seating: table layouts, the formats, and the repeat-meeting and seat-rotation metrics."""

import doctest
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.competitions import seating
from tournaments.competitions.seating import (
    SeatingHistory,
    assign_seats,
    cpu_fill_needed,
    final_table,
    meeting_pairs,
    repeat_meetings,
    seat_balanced_rotation,
    seat_by_rating,
    seat_random,
    seat_swiss,
    table_sizes,
)


def assert_valid_round(tables, players):
    seated = [p for table in tables for p in table]
    assert sorted(seated) == sorted(players), "every player seated exactly once"
    assert all(3 <= len(table) <= 5 for table in tables)


def most_preferred_tables(n, preferred, side_sizes):
    """Brute force: the most preferred-size tables in any split of n using only those sizes."""
    best = None
    for count in range(n // preferred + 1):
        rest = n - count * preferred
        if any(
            rest == sum(c)
            for k in range(rest // min(side_sizes) + 1)
            for c in itertools.combinations_with_replacement(side_sizes, k)
        ):
            best = count
    return best


def pair_counts(players, rounds):
    met = Counter()
    for tables in rounds:
        met.update(meeting_pairs(tables))
    return [met[frozenset(pair)] for pair in itertools.combinations(players, 2)]


def test_the_docstring_examples_hold():
    assert doctest.testmod(seating).failed == 0


# --- table sizes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "prefer", "expected"),
    [
        (3, "smaller", [3]),
        (4, "smaller", [4]),
        (5, "smaller", [5]),
        (6, "smaller", [3, 3]),
        (7, "smaller", [4, 3]),
        (9, "larger", [5, 4]),
        (10, "smaller", [4, 3, 3]),
        (10, "larger", [5, 5]),
        (11, "larger", [4, 4, 3]),
        (13, "smaller", [4, 3, 3, 3]),
        (13, "larger", [5, 4, 4]),
    ],
)
def test_table_sizes_follow_the_directors_preference(n, prefer, expected):
    assert table_sizes(n, prefer=prefer) == expected


@pytest.mark.parametrize("prefer", ["smaller", "larger"])
def test_every_count_from_3_to_200_gets_valid_tables_with_the_most_preferred_size(prefer):
    side = (3,) if prefer == "smaller" else (5,)
    for n in range(3, 201):
        sizes = table_sizes(n, prefer=prefer)
        assert sum(sizes) == n and all(3 <= size <= 5 for size in sizes)
        expected = most_preferred_tables(n, 4, side)
        if expected is not None:
            assert sizes.count(4) == expected, n
            assert set(sizes) <= {4, *side}, n


def test_other_preferred_sizes_and_restricted_sizes():
    assert table_sizes(12, preferred=5) == [5, 4, 3]
    assert table_sizes(12, preferred=5, prefer="smaller", allow=(3, 5)) == [3, 3, 3, 3]
    assert table_sizes(15, preferred=5) == [5, 5, 5]
    assert table_sizes(9, preferred=3, prefer="larger") == [3, 3, 3]
    assert table_sizes(8, allow=(4,)) == [4, 4]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_fewer_than_three_players_cannot_be_seated(n):
    with pytest.raises(ValueError, match="cannot fill a table"):
        table_sizes(n)


def test_impossible_layouts_and_bad_settings_are_refused():
    with pytest.raises(ValueError, match="cannot be split"):
        table_sizes(7, allow=(4,))
    with pytest.raises(ValueError, match="preferred"):
        table_sizes(10, preferred=5, allow=(3, 4))
    with pytest.raises(ValueError, match="among"):
        table_sizes(10, allow=(2, 4))
    with pytest.raises(ValueError, match="prefer"):
        table_sizes(10, prefer="middle")


def test_cpu_fill_counts_the_cpus_for_full_or_merely_valid_tables():
    assert [cpu_fill_needed(n) for n in range(1, 13)] == [3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0]
    assert cpu_fill_needed(0) == 0
    assert [cpu_fill_needed(n, only_preferred=False) for n in (1, 2, 3, 7)] == [2, 1, 0, 0]
    assert cpu_fill_needed(7, allow=(4,), only_preferred=False) == 1
    assert cpu_fill_needed(7, preferred=5) == 3


# --- formats: validity ------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 200), prefer=st.sampled_from(["smaller", "larger"]), seed=st.integers(0, 10**6))
def test_every_format_seats_every_player_once_at_valid_tables(n, prefer, seed):
    players = [f"p{i}" for i in range(n)]
    sizes = table_sizes(n, prefer=prefer)
    rng = random.Random(seed)
    assert_valid_round(seat_random(players, sizes, rng), players)
    ratings = {p: rng.randint(800, 2000) for p in players}
    assert_valid_round(seat_by_rating(ratings, sizes), players)
    assert_valid_round(seat_by_rating(ratings, sizes, spread=False), players)
    first = seat_random(players, sizes, rng)
    standings = rng.sample(players, n)
    swiss = seat_swiss(standings, SeatingHistory.from_rounds([first]), sizes, rng)
    assert_valid_round(swiss, players)
    assert [len(table) for table in swiss] == sizes


def test_seating_is_deterministic_for_a_seed():
    players = list(range(23))
    sizes = table_sizes(23)
    assert seat_random(players, sizes, 7) == seat_random(players, sizes, random.Random(7))
    history = SeatingHistory.from_rounds([seat_random(players, sizes, 1)])
    assert seat_swiss(players, history, sizes, 3) == seat_swiss(players, history, sizes, 3)
    rotation = seat_balanced_rotation(range(9), 3, [3, 3, 3], 5)
    assert rotation == seat_balanced_rotation(range(9), 3, [3, 3, 3], 5)


def test_players_and_sizes_must_match():
    with pytest.raises(ValueError, match="do not fit"):
        seat_random(range(9), [4, 4], 0)
    with pytest.raises(ValueError, match="more than once"):
        seat_swiss([1, 2, 3, 3], None, [4], 0)
    with pytest.raises(ValueError, match="among"):
        seat_random(range(8), [6, 2], 0)


def test_seat_by_rating_spreads_the_strongest_with_a_snake_draft():
    ratings = {name: rating for rating, name in enumerate("abcdefghij")}  # j strongest
    tables = seat_by_rating(ratings, [4, 3, 3])
    assert tables == [["j", "e", "d", "a"], ["i", "f", "c"], ["h", "g", "b"]]
    grouped = seat_by_rating(ratings, [4, 3, 3], spread=False)
    assert grouped == [["j", "i", "h", "g"], ["f", "e", "d"], ["c", "b", "a"]]


def test_final_table_is_the_top_n_with_the_leader_in_seat_0():
    assert final_table(["a", "b", "c", "d", "e"], 4) == [["a", "b", "c", "d"]]
    with pytest.raises(ValueError):
        final_table(["a", "b"], 3)
    with pytest.raises(ValueError):
        final_table(list("abcdefg"), 6)


# --- metrics ----------------------------------------------------------------------------------


def test_meeting_pairs_and_repeat_meetings():
    round_1 = [[1, 2, 3, 4], [5, 6, 7]]
    round_2 = [[1, 2, 5, 6], [3, 4, 7]]
    pairs = [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4), (5, 6), (5, 7), (6, 7)]
    assert meeting_pairs(round_1) == Counter({frozenset(pair): 1 for pair in pairs})
    assert repeat_meetings([round_1]) == 0
    assert repeat_meetings([round_1, round_2]) == 3  # 1-2, 5-6, 3-4
    assert repeat_meetings([round_1, round_2, round_1]) == 3 + 9


def test_history_accepts_plain_pairs_or_a_counter():
    tables = seat_swiss([1, 2, 3, 4, 5, 6, 7, 8], {(1, 2), (3, 4)}, [4, 4], 0)
    assert not any({1, 2} <= set(t) or {3, 4} <= set(t) for t in tables)
    tables = seat_swiss([1, 2, 3, 4, 5, 6, 7, 8], Counter({frozenset((1, 2)): 1}), [4, 4], 0)
    assert not any({1, 2} <= set(t) for t in tables)


# --- Swiss ------------------------------------------------------------------------------------


def play_tournament(seed, n_players=40, n_rounds=5, swiss=True):
    """Round 1 random, then Swiss (or random) rounds, with random results; returns the rounds."""
    rng = random.Random(seed)
    players = list(range(n_players))
    sizes = table_sizes(n_players)
    points, hearts = Counter(), Counter()
    history = SeatingHistory()
    rounds = []
    for round_number in range(n_rounds):
        if round_number == 0 or not swiss:
            tables = seat_random(players, sizes, rng)
        else:
            standings = sorted(players, key=lambda p: (-points[p], hearts[p]))
            tables = seat_swiss(standings, history, sizes, rng)
        history.record(tables)
        rounds.append(tables)
        for table in tables:
            for player, place in zip(table, rng.sample(range(len(table)), len(table)), strict=True):
                points[player] += (4, 2, 1, 0, 0)[place]
                hearts[player] += rng.randint(0, 60)
    return rounds, history


def test_swiss_rounds_repeat_far_fewer_meetings_than_random_seating():
    seeds = range(4)
    swiss = [repeat_meetings(play_tournament(seed)[0]) for seed in seeds]
    random_ = [repeat_meetings(play_tournament(seed, swiss=False)[0]) for seed in seeds]
    # Measured: Swiss 4, 4, 1, 8 repeats; random seating 47, 31, 43, 45.
    assert sum(swiss) / len(swiss) < 0.25 * sum(random_) / len(random_)
    assert max(swiss) < min(random_)


def test_swiss_groups_players_of_similar_standing():
    players = list(range(40))
    tables = seat_swiss(players, None, table_sizes(40), 0)
    assert [sorted(table) for table in tables] == [list(range(i, i + 4)) for i in range(0, 40, 4)]
    first = seat_random(players, table_sizes(40), 1)
    tables = seat_swiss(players, SeatingHistory.from_rounds([first]), table_sizes(40), 0)
    assert all(max(table) - min(table) <= 12 for table in tables)


def test_seat_positions_rotate_over_swiss_rounds():
    for seed in range(3):
        _, history = play_tournament(seed)
        # 5 rounds at tables of 4: nobody should sit in the same seat more than twice.
        assert max(max(seats.values()) for seats in history.seats.values()) <= 2


def test_assign_seats_gives_each_player_a_seat_they_had_least():
    history = SeatingHistory.from_rounds([[["a", "b", "c"]], [["a", "b", "c"]]])
    seated = assign_seats([["a", "b", "c"]], history, 0)
    assert all(seated[0][seat] != player for seat, player in enumerate("abc"))


def test_withdrawal_and_late_entry_keep_the_next_round_valid():
    rng = random.Random(11)
    players = list(range(21))
    new_ids = itertools.count(100)
    history = SeatingHistory()
    tables = seat_random(players, table_sizes(len(players)), rng)
    history.record(tables)
    for withdrawals, late_entries in ([2, 0], [0, 1]), ([5], [0]), ([3, 3, 7], [0, 0, 0, 0]), ([1], []):
        for index in withdrawals:
            players.pop(index)
        players.extend(next(new_ids) for _ in late_entries)
        standings = rng.sample(players, len(players))
        tables = seat_swiss(standings, history, table_sizes(len(players)), rng)
        assert_valid_round(tables, players)
        history.record(tables)


# --- balanced rotation ------------------------------------------------------------------------


def test_nine_players_over_four_rounds_meet_everyone_exactly_once():
    schedule = seat_balanced_rotation(range(9), 4, [3, 3, 3], 0)
    for tables in schedule:
        assert_valid_round(tables, range(9))
    assert set(pair_counts(range(9), schedule)) == {1}


def test_eight_players_over_seven_rounds_meet_everyone_three_times():
    schedule = seat_balanced_rotation(range(8), 7, [4, 4], 0)
    assert set(pair_counts(range(8), schedule)) == {3}


def test_twelve_players_over_three_rounds_have_the_fewest_possible_repeats():
    # From round 2 each table of 4 draws on only 3 earlier tables, so >= 1 repeat per table in
    # round 2 and >= 2 in round 3: 9 is the minimum.
    schedule = seat_balanced_rotation(range(12), 3, [4, 4, 4], 0)
    assert repeat_meetings(schedule) == 9
    assert max(pair_counts(range(12), schedule)) == 2


def test_balanced_rotation_beats_random_rounds_for_ten_players():
    sizes = table_sizes(10)
    schedule = seat_balanced_rotation(range(10), 4, sizes, 0)
    for tables in schedule:
        assert_valid_round(tables, range(10))
    rng = random.Random(0)
    random_repeats = [repeat_meetings([seat_random(range(10), sizes, rng) for _ in range(4)]) for _ in range(20)]
    assert repeat_meetings(schedule) < min(random_repeats)
    assert max(pair_counts(range(10), schedule)) == 2


def test_balanced_rotation_rotates_seats():
    schedule = seat_balanced_rotation(range(8), 4, [4, 4], 3)
    history = SeatingHistory.from_rounds(schedule)
    # A perfect rotation (every seat once) is not always possible table by table; twice at most is.
    assert max(max(seats.values()) for seats in history.seats.values()) <= 2
    assert sum(len(seats) for seats in history.seats.values()) >= 0.75 * 8 * 4


def test_balanced_rotation_can_be_planned_again_after_a_withdrawal_and_a_late_entry():
    played = seat_balanced_rotation(range(12), 2, [4, 4, 4], 0)
    players = [p for p in range(12) if p != 4] + [99]
    rest = seat_balanced_rotation(players, 3, table_sizes(12), 0, history=SeatingHistory.from_rounds(played))
    for tables in rest:
        assert_valid_round(tables, players)
    rng = random.Random(0)
    with_random_rest = [
        repeat_meetings(played + [seat_random(players, [4, 4, 4], rng) for _ in range(3)]) for _ in range(10)
    ]
    assert repeat_meetings(played + rest) < min(with_random_rest)
