"""python -m engine.arena: duplicate deals, every table size, rule options, summary figures."""

from __future__ import annotations

import random

import pytest

from engine import Rules
from engine.arena import Tally, main, make_deal, new_hand, run_deals


@pytest.mark.parametrize(
    ("seats", "rules"),
    [
        ("rule,random,random", ["leftover=kitty", "black_maria=true"]),
        ("rule,random,random,montecarlo", ["moon=shooter_chooses"]),
        ("random,rule,random,rule,random", ["jack_of_diamonds=true", "removed_cards=2D,3C"]),
    ],
)
def test_arena_reports_every_bot(seats, rules, capsys):
    argv = ["--seats", seats, "--hands", "10", "--seed", "3", "--rules", *rules, "--bot", "montecarlo.samples=2"]
    summary = main(argv)
    n = len(seats.split(","))
    assert summary["deals"] == -(-10 // n) and summary["hands"] == summary["deals"] * n
    for kind in set(seats.split(",")):
        b = summary["bots"][kind]
        assert b["mean"] == b["mean"] and b["ci95"] >= 0 and b["p95_ms"] >= b["p50_ms"]
    out = capsys.readouterr().out
    assert "95% CI" in out and "paired by deal" in out


def test_every_seat_plays_every_deal_position():
    rules = Rules(players=4)
    tally = run_deals(rules, ["rule", "random", "random", "random"], [0, 1], "s", {})
    assert tally.hands == 8
    for d in tally.deals:
        assert d["rule"][1] == 4 and d["random"][1] == 12


def test_the_pass_direction_cycles_with_the_deal_number():
    rules = Rules(players=4)
    deal = make_deal(rules, random.Random(1))
    for k, direction in enumerate(["left", "right", "across", "none"]):
        g = new_hand(rules, deal, rules.pass_direction(k + 1))
        assert g.view(0)["pass_direction"] == direction
        assert g.phase == ("playing" if direction == "none" else "passing")


def test_tallies_merge():
    a = run_deals(Rules(players=3), ["rule", "random", "random"], [0], 1, {})
    b = run_deals(Rules(players=3), ["rule", "random", "random"], [1], 1, {})
    t = Tally()
    t.merge(a)
    t.merge(b)
    assert t.hands == 6 and len(t.deals) == 2
