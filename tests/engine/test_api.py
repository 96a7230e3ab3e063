"""The public face: cards, rules, events, redaction, replay, dealing, view."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import (
    Card,
    Event,
    Game,
    IllegalMove,
    ReplayError,
    Rules,
    cards_of,
    event_from_dict,
    redact,
)
from engine.events import EVENT_TYPES
from tests.engine.helpers import SUITED, new, play_hand


# ---------------------------------------------------------------- cards
def test_card_parses_text_forms_and_prints_as_two_letters():
    qs = Card.parse("QS")
    assert str(qs) == "QS" and int(qs) == 49 and qs.index == 49
    assert Card.parse("Q♠") is qs and Card.parse("qs") is qs and Card(49) is qs
    assert str(Card.parse("10H")) == "TH" and Card.parse("TH").symbol == "T♥"
    assert Card.parse(qs) is qs and f"{qs}" == "QS" and repr(qs) == "Card('QS')"
    assert Card.parse("2C") < Card.parse("AC") < Card.parse("2D") < Card.parse("2S")
    assert len({Card.parse("QS"), Card.parse("Q♠")}) == 1
    for bad in ("1S", "QX", "", "QSS", 52, None):
        with pytest.raises(ValueError):
            Card.parse(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Card(52)


# ---------------------------------------------------------------- rules
def test_rules_defaults_follow_rules_md():
    r = Rules()
    assert (r.players, r.leftover, r.passing, r.first_lead, r.moon, r.end_score) == (
        4,
        "remove",
        "cycle",
        "lowest_club",
        "add_to_others",
        100,
    )
    assert r.no_points_first_trick and not r.hearts_any_time and not r.queen_breaks_hearts
    assert not r.jack_of_diamonds and not r.black_maria and not r.exact_end_score_halves
    assert Rules(players=3).removed_cards == ("2D",)
    assert Rules(players=5).removed_cards == ("2D", "2C")


def test_rules_round_trip_through_a_dict_and_are_frozen():
    r = Rules(players=3, removed_cards=("2C",), moon="shooter_chooses", black_maria=True)
    d = json.loads(json.dumps(r.to_dict()))
    assert Rules.from_dict(d) == r
    assert Rules.from_dict({}) == Rules()
    with pytest.raises(AttributeError):
        r.players = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    "kw",
    [
        {"players": 2},
        {"players": 6},
        {"leftover": "burn"},
        {"passing": "right"},
        {"moon": "both"},
        {"first_lead": "dealer"},
        {"end_score": 0},
        {"players": 3, "leftover": "kitty", "removed_cards": ("2D",)},
        {"players": 3, "removed_cards": ("2D", "2C")},
        {"players": 4, "removed_cards": ("2D",)},
        {"players": 3, "removed_cards": ("2H",)},
        {"players": 3, "removed_cards": ("QS",)},
        {"players": 5, "removed_cards": ("2D", "2D")},
        {"players": 3, "removed_cards": ("ZZ",)},
        {"hearts_any_time": True, "queen_breaks_hearts": True},
        {"black_maria": 1},
    ],
)
def test_invalid_rules_raise_value_error(kw):
    with pytest.raises(ValueError):
        Rules(**kw)
    with pytest.raises(ValueError):
        Rules.from_dict({**Rules().to_dict(), **{k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()}})


def test_rules_from_dict_refuses_unknown_options():
    with pytest.raises(ValueError):
        Rules.from_dict({"jokers": True})


# ---------------------------------------------------------------- events
def full_game(rules: Rules, seed: int = 5) -> Game:
    import random

    rng = random.Random(seed)
    g = Game.new(rules, seed=seed)
    while g.phase != "game_over":
        if g.phase == "passing":
            s = g.to_act[0]
            g.pass_cards(s, rng.sample(g.hand(s), 3))
        elif g.phase == "playing":
            s = g.to_act[0]
            g.play(s, rng.choice(g.legal_plays(s)))
        else:
            g.choose_moon(g.to_act[0], "subtract_from_self")
    return g


def test_every_event_type_round_trips_through_its_dict():
    g = full_game(Rules(players=3, leftover="kitty", moon="shooter_chooses", end_score=50))
    g2 = new(SUITED, moon="shooter_chooses")
    play_hand(g2)
    g2.choose_moon(0, "add_to_others")
    seen = set()
    for e in g.events + g2.events:
        d = e.to_dict()
        assert d["type"] == e.type and d["v"] == e.version
        assert json.loads(json.dumps(d)) == d
        assert event_from_dict(d) == e and isinstance(e, Event)
        seen.add(e.type)
    assert seen == set(EVENT_TYPES)
    assert g.events[0].type == "GameStarted" and g.events[0].rules == g.rules


def test_event_from_dict_refuses_unknown_types_and_versions():
    with pytest.raises(ValueError):
        event_from_dict({"type": "CardBurnt", "v": 1})
    with pytest.raises(ValueError):
        event_from_dict({"type": "MoonChosen", "v": 9, "seat": 0, "choice": "x"})
    with pytest.raises(ValueError):
        event_from_dict({"type": "MoonChosen", "v": 1})


def test_events_are_frozen():
    e = Game.new(Rules(), seed=1).events[1]
    with pytest.raises(AttributeError):
        e.dealer = 3  # type: ignore[misc]


# ---------------------------------------------------------------- dealing and replay
def test_seeded_dealing_is_deterministic_and_each_hand_has_its_own_rng():
    a, b = Game.new(Rules(), seed=7), Game.new(Rules(), seed=7)
    assert a.events == b.events
    assert Game.new(Rules(), seed=8).events[1] != a.events[1]
    assert Game.new(Rules(), seed="7").events[1] == a.events[1]  # str(seed) is the key


def test_without_a_seed_dealing_uses_os_randomness():
    a, b = Game.new(Rules()), Game.new(Rules())
    assert a.seed is None and a.events[0].seed is None
    assert a.events[1].hands != b.events[1].hands
    assert Game.replay(a.events) == a


def test_explicit_deals_are_used_in_order_and_then_the_seed():
    g = Game.new(Rules(passing="off", moon="off"), seed=3, deals=[SUITED])
    assert [str(c) for c in g.hand(0)] == SUITED[0]
    play_hand(g)
    hand2 = g.events[-1]
    assert hand2.type == "HandDealt" and hand2.hand_number == 2
    ref_hands, _ = Game.new(Rules(passing="off"), seed=3)._make_deal(2)
    assert hand2.hands == tuple(cards_of(m) for m in ref_hands)


@pytest.mark.parametrize(
    "deal",
    [
        SUITED[:3],
        [SUITED[0], SUITED[0], SUITED[2], SUITED[3]],
        [SUITED[0][:12], SUITED[1], SUITED[2], [*SUITED[3], SUITED[0][12]]],
        [["ZZ", *SUITED[0][1:]], SUITED[1], SUITED[2], SUITED[3]],
    ],
)
def test_bad_explicit_deals_are_refused(deal):
    with pytest.raises(ValueError):
        Game.new(Rules(), deals=[deal])


def test_a_replayed_game_deals_later_hands_like_the_original():
    g = Game.new(Rules(passing="off"), seed=21)
    play_hand(g)
    cut = len(g.events) - 1  # drop hand 2's HandDealt: the replay must deal it itself
    assert g.events[cut].type == "HandDealt"
    r = Game.replay(g.events[:cut])
    assert r == g
    assert Game.replay(g.events[:cut]).events[-1] == g.events[-1]


def test_replay_never_needs_the_seed():
    g = Game.new(Rules(), seed=99)
    for s in range(4):
        g.pass_cards(s, g.hand(s)[:3])
    d = [e.to_dict() for e in g.events]
    d[0]["seed"] = None
    r = Game.replay(d)
    assert r.state_dict()["hands"] == g.state_dict()["hands"]


def test_replay_refuses_a_tampered_log():
    g = Game.new(Rules(passing="off"), seed=4)
    play_hand(g)
    d = [e.to_dict() for e in g.events]
    bad = [dict(x) for x in d]
    i = next(k for k, x in enumerate(bad) if x["type"] == "TrickTaken")
    bad[i]["winner"] = (bad[i]["winner"] + 1) % 4
    with pytest.raises(ReplayError):
        Game.replay(bad)
    bad = [dict(x) for x in d]
    j = next(k for k, x in enumerate(bad) if x["type"] == "CardPlayed" and k > 8)
    bad[j], bad[j + 1] = bad[j + 1], bad[j]
    with pytest.raises(ReplayError):
        Game.replay(bad)
    with pytest.raises(ReplayError):
        Game.replay(d[1:])
    with pytest.raises(ReplayError):
        Game.replay([d[0], d[0]])


def test_game_equality_and_copy():
    g = Game.new(Rules(), seed=2)
    c = g.copy()
    assert c == g
    c.pass_cards(0, c.hand(0)[:3])
    assert c != g and g.to_act == (0, 1, 2, 3)


# ---------------------------------------------------------------- redaction and view
def test_redaction_while_the_game_is_live():
    g = Game.new(Rules(players=3, leftover="kitty"), seed=3)
    g.pass_cards(0, g.hand(0)[:3])
    started, dealt, passed = (e.to_dict() for e in g.events)
    assert "seed" not in redact(started, 0, False) and "seed" not in redact(started, None, True)
    r = redact(dealt, 1, False)
    assert r["hands"][1] == dealt["hands"][1] and r["hands"][0] is None
    assert r["hand_counts"] == [17, 17, 17] and r["kitty"] is None and r["kitty_count"] == 1
    assert redact(dealt, None, False)["hands"] == [None, None, None]
    assert redact(passed, 0, False)["cards"] == passed["cards"]
    assert redact(passed, 1, False)["cards"] is None
    assert redact(passed, None, False)["seat"] == 0
    g.pass_cards(1, g.hand(1)[:3])
    g.pass_cards(2, g.hand(2)[:3])
    done = g.events[-1].to_dict()
    assert done["type"] == "PassCompleted"
    r = redact(done, 1, False)["received"]
    assert r[1]["cards"] == done["received"][1]["cards"]  # what seat 1 received
    assert r[2]["cards"] == done["received"][2]["cards"]  # what seat 1 passed (to seat 2)
    assert r[0]["cards"] is None and r[0]["from"] == 2
    assert all(x["cards"] is None for x in redact(done, None, False)["received"])
    assert redact(done, None, True) == done
    assert redact(dealt, None, True)["hands"] == dealt["hands"]
    assert redact(g.events[1], 0, False)["hands"][0] == dealt["hands"][0]  # Event objects too


def test_view_is_json_and_never_shows_the_seed():
    g = Game.new(Rules(players=5, leftover="kitty"), seed=123456)
    for seat in (None, 0, 3):
        v = g.view(seat)
        text = json.dumps(v)
        assert "seed" not in v and "123456" not in text
        for key in (
            "players",
            "rules",
            "phase",
            "hand_number",
            "dealer",
            "pass_direction",
            "to_act",
            "hand",
            "legal_plays",
            "passed",
            "received",
            "passed_seats",
            "trick",
            "leader",
            "tricks",
            "hearts_broken",
            "points_taken",
            "hand_counts",
            "totals",
            "hand_scores",
            "winner",
            "moon",
        ):
            assert key in v
    assert g.view(None)["hand"] is None
    assert g.view(0)["hand"] == [str(c) for c in g.hand(0)]
    with pytest.raises(IllegalMove):
        g.view(5)


def test_view_after_the_game_is_over():
    g = full_game(Rules(end_score=26))
    v = g.view(None)
    assert v["phase"] == "game_over" and v["winner"] == g.winner and v["to_act"] == []
    assert v["totals"] == g.totals and len(v["hand_scores"]) == g.hand_number


# ---------------------------------------------------------------- packaging
def test_the_engine_imports_only_the_standard_library():
    code = (
        "import sys, engine, engine.fast, engine.bench; "
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'hearts_league', 'tournaments', 'ratings')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bench_runs(capsys):
    from engine import bench

    bench.main(["--hands", "20", "--games", "2", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "hands/s" in out and "plays/s" in out and "events/s" in out


def test_replay_of_a_game_waiting_for_the_moon_choice_and_after_it():
    g = new(SUITED, moon="shooter_chooses")
    play_hand(g)
    assert g.phase == "moon_choice"
    r = Game.replay([e.to_dict() for e in g.events])
    assert r == g and r.phase == "moon_choice" and r.to_act == (0,)
    g.choose_moon(0, "subtract_from_self")
    r.choose_moon(0, "subtract_from_self")
    assert r == g == Game.replay(g.events)


@pytest.mark.parametrize("module", ["cards", "rules", "core", "events", "game", "redact", "fast", "__init__"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module("engine" if module == "__init__" else f"engine.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_game_replayed_with_its_explicit_deals_deals_the_next_hand_from_them():
    from engine import Game, Rules

    first = Game.new(Rules(), seed=1)
    second = Game.new(Rules(), seed=2)
    deals = [first.events[1].hands, second.events[1].hands]
    game = Game.new(Rules(passing="off"), deals=deals)
    while game.hand_number == 1:
        seat = game.to_act[0]
        game.play(seat, game.legal_plays(seat)[0])
    assert [game.hand(s) for s in range(4)] == [sorted(h) for h in deals[1]]
    halfway = [e.to_dict() for e in game.events[:5]]
    rebuilt = Game.replay(halfway, deals=deals)
    while rebuilt.hand_number == 1:
        seat = rebuilt.to_act[0]
        rebuilt.play(seat, rebuilt.legal_plays(seat)[0])
    assert rebuilt == game
