"""``Game.position``: a replay can stop after any event of a log, inside a command's events
too, and shows exactly what had happened by then: nothing dealt that the log does not hold,
no card from a later event, the same answer every time."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, ReplayError, Rules
from tests.engine.test_properties import card_strings, rules_st

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_log(rules: Rules, seed: int, hands: int = 2) -> list[dict]:
    rng = random.Random(seed)
    g = Game.new(rules, seed=seed)
    while g.phase != "game_over" and len(g.hand_scores) < hands:
        seat = rng.choice(g.to_act)
        if g.phase == "passing":
            g.pass_cards(seat, rng.sample(g.hand(seat), 3))
        elif g.phase == "moon_choice":
            g.choose_moon(seat, rng.choice(["add_to_others", "subtract_from_self"]))
        else:
            g.play(seat, rng.choice(g.legal_plays(seat)))
    return [e.to_dict() for e in g.events]


@SETTINGS
@given(rules=rules_st(), seed=st.integers(0, 10**6))
def test_every_position_of_a_log_answers_and_shows_only_what_happened_by_then(rules, seed):
    log = random_log(rules, seed)
    n = rules.players
    for k in range(1, len(log) + 1):
        position = Game.position(log, k)
        views = {seat: position.view(seat) for seat in [*range(n), None]}
        # a position is a function of the log up to it: later events change nothing
        assert Game.position(log[:k], k).view(0) == views[0]
        assert position.view(0) == views[0]  # nothing random: the same answer every time
        last = log[k - 1]["type"]
        if last in ("GameStarted", "HandScored") and views[0]["phase"] == "dealing":
            assert all(v["hand"] in ([], None) for v in views.values())
            assert views[0]["hand_counts"] == [0] * n and views[0]["trick"] == []
        if position.partial:
            assert views[0]["to_act"] == [] and views[0]["legal_plays"] == []
        if last == "CardPlayed" and position.partial:
            assert len(views[0]["trick"]) == n  # the trick's last card lies on the table
            assert views[0]["trick"][-1] == {"seat": log[k - 1]["seat"], "card": log[k - 1]["card"]}
        for seat, view in views.items():
            assert view["seat"] == seat
            if seat is None:
                assert view["hand"] is None
                continue
            # another seat's unplayed cards never appear: everything named is known to this seat
            others = set()
            for other in range(n):
                if other != seat:
                    others |= set(views[other]["hand"] or [])
            named = card_strings({key: value for key, value in view.items() if key != "hand"}, set())
            assert not (named & others - set(view["received"] or []) - set(view["passed"] or [])), (k, seat)
        assert sum(views[0]["hand_counts"]) + len(views[0]["trick"]) <= 52


@SETTINGS
@given(rules=rules_st(), seed=st.integers(0, 10**6))
def test_a_position_at_a_command_boundary_is_the_replayed_game(rules, seed):
    log = random_log(rules, seed)
    boundaries = [
        k
        for k in range(2, len(log) + 1)
        if not Game.position(log, k).partial and Game.position(log, k).phase != "dealing"
    ]
    assert boundaries
    for k in [*boundaries[:: max(1, len(boundaries) // 12)], len(log)]:
        replayed = Game.replay(log[:k])
        for seat in [*range(rules.players), None]:
            assert Game.position(log, k).view(seat) == replayed.view(seat)


def test_totals_change_only_at_the_hand_score_and_the_next_hand_waits_for_its_deal():
    log = random_log(Rules(players=4, passing="off"), 3, hands=1)
    types = [e["type"] for e in log]
    scored = types.index("HandScored") + 1
    last_trick = scored - 1
    assert types[last_trick - 1] == "TrickTaken"
    before = Game.position(log, last_trick).view(0)
    after = Game.position(log, scored).view(0)
    assert before["totals"] == [0, 0, 0, 0] and len(before["tricks"]) == 13
    assert after["totals"] == log[scored - 1]["totals"] and after["phase"] == "dealing"
    dealt = Game.position(log, scored + 1).view(0)
    assert dealt["hand"] == log[scored]["hands"][0]


def test_a_position_refuses_what_is_not_a_log():
    with pytest.raises(ReplayError):
        Game.position([], 1)
    log = random_log(Rules(), 1, hands=1)
    with pytest.raises(ReplayError):
        Game.position(log, 0)
    forged = [*log[:10], {**log[10], "card": "QS"} if log[10]["type"] == "CardPlayed" else log[10]]
    if forged[-1] != log[10]:
        with pytest.raises(ReplayError):
            Game.position(forged, 11)
