"""Post-game analysis: it reads a seat's view only, flags real errors, never forced ones,
and rebuilds exactly."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, ReplayError, Rules
from engine.analysis import (
    CLASSES,
    RESULT_KEYS,
    THRESHOLDS,
    Budget,
    analyse,
    classify,
    decision_seed,
    decisions,
    pass_candidates,
    review,
    summarise,
)
from engine.bots import make
from engine.bots.knowledge import Knowledge, bits
from engine.bots.montecarlo import card_classes
from engine.cards import NAMES, cards_of
from engine.core import first_lead_card

from .bots.helpers import RULE_SETS, apply, rules_id, step
from .helpers import SUITED, hands, play_hand

TINY = Budget(play_samples=6, pass_screen=3, pass_finalists=2, pass_samples=6)
SMALL = Budget(play_samples=60, pass_screen=8, pass_finalists=2, pass_samples=40)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bot_game(rules: Rules, seed: int, kinds=("rule", "random"), hands_: int = 1) -> Game:
    g = Game.new(rules, seed=seed)
    walkers = [make(kinds[s % len(kinds)], seed=f"{seed}:{s}") for s in range(rules.players)]
    while g.phase != "game_over" and len(g.hand_scores) < hands_:
        step(g, walkers)
    return g


def log_of(g: Game) -> list[dict]:
    return [e.to_dict() for e in g.events]


# ---------------------------------------------------------------------- decisions
@pytest.mark.parametrize("spec", RULE_SETS[:6], ids=rules_id)
def test_every_pass_and_play_is_a_decision_with_the_view_before_it(spec):
    g = bot_game(Rules.from_dict(spec), seed=5, hands_=2)
    log = log_of(g)
    ds = list(decisions(log))
    recorded = [i for i, e in enumerate(log) if e["type"] in ("CardsPassed", "CardPlayed", "MoonChosen")]
    assert [d.position for d in ds] == recorded
    for d in ds[::7]:
        # what a replay of the log up to just before the decision shows that seat
        assert d.view == Game.replay(log[: d.position]).view(d.seat)
    for d in ds:
        assert d.seat in d.view["to_act"]
        if d.kind == "play":
            assert d.taken in d.view["legal_plays"] and d.taken == log[d.position]["card"]
        elif d.kind == "pass":
            assert sorted(d.taken) == sorted(log[d.position]["cards"])
            assert set(d.taken) <= set(d.view["hand"])


def test_only_the_positions_asked_are_yielded_and_a_bad_log_is_refused():
    log = log_of(bot_game(Rules(), seed=2))
    all_ = list(decisions(log))
    some = [all_[3].position, all_[40].position]
    assert [d.position for d in decisions(log, positions=some)] == some
    assert [d.view for d in decisions(log, positions=some)] == [all_[3].view, all_[40].view]
    bad = [dict(e) for e in log]
    k = next(i for i, e in enumerate(bad) if e["type"] == "CardPlayed" and i > 30)
    bad[k]["card"] = "2C" if bad[k]["card"] != "2C" else "3C"
    with pytest.raises(ReplayError):
        list(decisions(bad))


# ---------------------------------------------------------------------- the view only
SWAP_RULES = [
    {"players": 4},
    {"players": 4, "passing": "off", "jack_of_diamonds": True},
    {"players": 3, "leftover": "kitty"},
    {"players": 5, "black_maria": True},
]


def _commands(g: Game, walkers) -> list[tuple[str, int, object]]:
    """Play hand 1 with the bots, recording every command."""
    out = []
    while len(g.hand_scores) < 1:
        seat = g.to_act[0]
        cmd = walkers[seat].decide(g.view(seat))
        out.append((cmd["type"], seat, cmd.get("cards") or cmd.get("card") or cmd.get("choice")))
        apply(g, seat, cmd)
    return out


@pytest.mark.parametrize("spec", SWAP_RULES, ids=rules_id)
@SETTINGS
@given(data=st.data())
def test_the_review_of_a_seat_ignores_the_other_seats_hidden_cards(spec, data):
    """Swap two cards between two other seats' hands (same suit, so every public move
    stays legal), play the same public moves: the seat's views and reviews are equal."""
    rules = Rules.from_dict(spec)
    n = rules.players
    rng = random.Random(data.draw(st.integers(0, 10**6), label="deal"))
    deck = [c for c in range(52) if not rules.removed_mask >> c & 1]
    rng.shuffle(deck)
    size = rules.hand_size
    deal = [[NAMES[c] for c in deck[s * size : (s + 1) * size]] for s in range(n)]
    if rules.kitty_size:
        deal.append([NAMES[c] for c in deck[n * size :]])
    me = data.draw(st.integers(0, n - 1), label="seat")
    g1 = Game.new(rules, seed=1, deals=[deal])
    walkers = [make("rule" if s % 2 else "random", seed=s) for s in range(n)]
    cmds = _commands(g1, walkers)
    passed = {c for kind, _, cs in cmds if kind == "pass" for c in cs}
    play_order = [c for kind, _, c in cmds if kind == "play"]
    first = NAMES[first_lead_card(rules, [bits(h) for h in deal[:n]])] if rules.first_lead == "lowest_club" else None
    others = [s for s in range(n) if s != me]
    pairs = []
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            for x in deal[a]:
                for y in deal[b]:
                    if x[1] == y[1] and "QS" not in (x, y) and first not in (x, y) and not {x, y} & passed:
                        pairs.append((a, b, x, y))
    if not pairs:
        return
    a, b, x, y = data.draw(st.sampled_from(pairs), label="swap")
    swapped = [list(h) for h in deal]
    swapped[a][swapped[a].index(x)] = y
    swapped[b][swapped[b].index(y)] = x
    g2 = Game.new(rules, seed=1, deals=[swapped])
    # the same public moves, until x or y would be played
    stop = min(play_order.index(x), play_order.index(y))
    k = 0
    for kind, seat, what in cmds:
        if kind == "play":
            if k == stop:
                break
            k += 1
        apply(g2, seat, {"type": kind, "cards": what, "card": what, "choice": what})
    cut = len(g2.events)
    log1, log2 = log_of(g1), log_of(g2)
    assert log1[0] == log2[0] and log1[1] != log2[1]  # different deals
    mine1 = [d for d in decisions(log1) if d.seat == me and d.position < cut]
    mine2 = [d for d in decisions(log2) if d.seat == me and d.position < cut]
    assert [d.position for d in mine1] == [d.position for d in mine2]
    assert [d.view for d in mine1] == [d.view for d in mine2]
    positions = [d.position for d in mine1]
    r1 = list(analyse(log1, "game-7", budget=TINY, positions=positions))
    r2 = list(analyse(log2, "game-7", budget=TINY, positions=positions))
    assert r1 == r2 and len(r1) == len(positions)


def test_the_seed_is_built_from_public_data_only():
    assert decision_seed("g", 10, 2) == decision_seed("g", 10, 2)
    assert (
        len(
            {decision_seed("g", 10, 2), decision_seed("g", 11, 2), decision_seed("g", 10, 3), decision_seed("h", 10, 2)}
        )
        == 4
    )


# ---------------------------------------------------------------------- classes
# Seat 1 wins the first trick with AC and leads 5S; seat 2 plays its only spade JS,
# seat 3 ducks with 4S; seat 0, last, holds QS with three low spades and low cards.
QUEEN_ON_OWN_TRICK = hands(
    "2C 3C 4C 5C 2D 3D 4D 5D 6D 2S 3S 6S QS",
    "AC KC QC JC 5S 7S 8S AD KD QD 2H 3H 4H",
    "6C 7C 8C 9C JS 5H 6H 7H 8H 9H TH JH QH",
    "TC 4S 9S TS KS AS 7D 8D 9D TD JD KH AH",
)


def queen_position() -> dict:
    g = Game.new(Rules(passing="off"), deals=[QUEEN_ON_OWN_TRICK])
    for seat, card in ((0, "2C"), (1, "AC"), (2, "6C"), (3, "TC"), (1, "5S"), (2, "JS"), (3, "4S")):
        g.play(seat, card)
    view = g.view(0)
    assert view["legal_plays"] == ["2S", "3S", "6S", "QS"]
    return view


def test_dumping_the_queen_on_your_own_trick_is_a_blunder():
    view = queen_position()
    r = review(view, "QS", seed=decision_seed("q", 11, 0))
    assert r["class"] == "blunder"
    assert r["best"] == "2S" and r["taken"] == "QS"  # 2S, 3S and 6S are equivalent
    assert r["taken_expected"] >= 13  # the queen is taken for certain
    assert r["loss"] >= THRESHOLDS[2] and not r["forced"]
    safe = review(view, "6S", seed=decision_seed("q", 11, 0))
    assert safe["class"] == "good" and safe["loss"] == 0 and safe["best"] == "6S"
    assert safe["taken_expected"] == r["best_expected"]  # same seed, same deals


def test_a_pass_that_keeps_the_lone_queen_and_gives_away_low_cards_is_flagged():
    g = Game.new(
        Rules(),
        deals=[
            hands(
                "2C 3C 4C 2D 3D 4D 2H 3H 4H QS AS KH AH",
                "5C 6C 7C 8C 5D 6D 7D 8D 5H 6H 7H 8H 2S",
                "9C TC JC QC 9D TD JD QD 9H TH JH 3S 4S",
                "KC AC KD AD QH 5S 6S 7S 8S 9S TS JS KS",
            )
        ],
    )
    view = g.view(0)
    bad = review(view, ["2C", "2D", "2H"], seed=decision_seed("p", 2, 0), budget=SMALL)
    assert bad["class"] in ("mistake", "blunder") and bad["loss"] >= THRESHOLDS[1]
    assert {"QS", "AS"} & set(bad["best"])
    assert bad["options"][0]["option"] == bad["best"]
    assert any(o["option"] == ["2C", "2D", "2H"] and o["samples"] == SMALL.pass_samples for o in bad["options"])


@pytest.mark.parametrize("spec", RULE_SETS, ids=rules_id)
def test_a_forced_play_is_never_flagged(spec):
    rules = Rules.from_dict(spec)
    seen = 0
    for seed in range(3):
        log = log_of(bot_game(rules, seed, kinds=("random",)))
        for d in decisions(log):
            if d.kind != "play":
                continue
            know = Knowledge.from_view(d.view)
            groups = card_classes(know)
            if len(groups) > 1:
                continue
            seen += 1
            for card in cards_of(know.legal):  # whichever of the equivalent cards
                r = review(d.view, NAMES[card], seed=decision_seed("f", d.position, d.seat))
                assert r["forced"] and r["class"] == "good" and r["loss"] == 0
                assert r["samples"] == 0  # nothing was searched
    assert seen > 0


def test_classes_follow_the_thresholds():
    lo, mid, hi = THRESHOLDS
    assert [classify(x) for x in (0, lo - 0.001, lo, mid, hi, 26)] == [
        "good",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_the_moon_choice_that_throws_the_game_away_is_a_blunder():
    # seat 0 takes every trick: with end score 26, "add_to_others" ends the game at
    # once with seat 0 the winner; "subtract_from_self" plays on
    g = Game.new(Rules(passing="off", moon="shooter_chooses", end_score=26), seed=1, deals=[SUITED])
    play_hand(g)
    assert g.phase == "moon_choice"
    log = log_of(g)
    g.choose_moon(0, "subtract_from_self")
    d = next(decisions(log_of(g), positions=[len(log)]))
    assert d.kind == "moon_choice" and d.taken == "subtract_from_self"
    r = review(d.view, d.taken, seed=decision_seed("m", d.position, 0))
    assert r["class"] == "blunder" and r["best"] == "add_to_others"
    good = review(d.view, "add_to_others", seed=0)
    assert good["class"] == "good" and good["loss"] == 0
    # far from the end score both choices are worth the same: never flagged
    g = Game.new(Rules(passing="off", moon="shooter_chooses"), seed=1, deals=[SUITED])
    play_hand(g)
    for choice in ("add_to_others", "subtract_from_self"):
        r = review(g.view(0), choice, seed=0)
        assert r["forced"] and r["class"] == "good"


def test_a_review_refuses_an_option_the_view_does_not_have():
    view = queen_position()
    for taken in ("4S", "KH", ["3S"]):
        with pytest.raises(ValueError):
            review(view, taken, seed=1)
    g = Game.new(Rules(), seed=3)
    hand = g.view(0)["hand"]
    with pytest.raises(ValueError):
        review(g.view(0), hand[:2], seed=1)
    with pytest.raises(ValueError):
        review(g.view(0), hand[:2] + [c for c in NAMES if c not in hand][:1], seed=1)


# ---------------------------------------------------------------------- passes
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), pick=st.lists(st.integers(0, 12), min_size=3, max_size=3, unique=True))
def test_pass_candidates_are_three_cards_of_the_hand_the_set_taken_first(seed, pick):
    rules = Rules()
    hand = Game.new(rules, seed=seed).view(0)["hand"]
    taken = bits(hand[i] for i in pick)
    cands = pass_candidates(bits(hand), rules, taken)
    assert cands[0] == taken
    assert len(set(cands)) == len(cands) >= 2
    assert all(m.bit_count() == 3 and not m & ~bits(hand) for m in cands)


# ---------------------------------------------------------------------- rebuilding
def test_rebuilding_gives_identical_results_in_another_process():
    log = log_of(bot_game(Rules(), seed=11))
    positions = [d.position for d in decisions(log)][::9]
    first = list(analyse(log, "game-42", budget=SMALL, positions=positions))
    assert list(analyse(log, "game-42", budget=SMALL, positions=positions)) == first
    assert json.loads(json.dumps(first)) == first  # JSON-serialisable as it is
    for r in first:
        assert sorted(r) == sorted(["position", *RESULT_KEYS]) and r["class"] in CLASSES
    code = (
        "import json, sys\n"
        "from engine.analysis import Budget, analyse\n"
        "log, positions, budget = json.load(sys.stdin)\n"
        "print(json.dumps(list(analyse(log, 'game-42', budget=Budget(**budget), "
        "positions=positions))))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps([log, positions, SMALL.to_dict()]),
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert json.loads(out.stdout) == first


def test_a_resumed_analysis_skips_what_is_stored_and_ends_equal():
    log = log_of(bot_game(Rules(), seed=12))
    full = list(analyse(log, 7, budget=TINY))
    done = full[: len(full) // 3]
    rest = list(analyse(log, 7, budget=TINY, skip=[r["position"] for r in done]))
    assert done + rest == full


def test_the_summary_counts_every_decision_of_each_seat():
    log = log_of(bot_game(Rules(), seed=13))
    results = list(analyse(log, 1, budget=TINY))
    rows = summarise(results, 4)
    assert sum(r["decisions"] for r in rows) == len(results)
    for row in rows:
        mine = [r for r in results if r["seat"] == row["seat"]]
        assert sum(row["counts"].values()) == row["decisions"] == len(mine)
        assert row["choices"] == sum(not r["forced"] for r in mine)
        assert row["total_loss"] == pytest.approx(sum(r["loss"] for r in mine), abs=1e-6)


def test_docstring_examples_run():
    import doctest

    import engine.analysis

    assert doctest.testmod(engine.analysis).failed == 0


def test_an_unknown_budget_is_refused():
    with pytest.raises(ValueError):
        Budget(play_samples=0)
    with pytest.raises(ValueError):
        Budget(eps=2)
    assert Budget.from_dict(Budget().to_dict()) == Budget()
