"""The rule bot follows the tips: small scenarios with explicit deals."""

from __future__ import annotations

from engine import Game, Rules, bots

RULE = bots.make("rule", seed=0)


def h(cards: str) -> list[str]:
    return cards.split()


# Seat 0 all clubs; seat 1 diamonds and Q♠; seat 2 hearts and A♦; seat 3 spades and A♥.
QUEEN_DUMP = [
    h("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
    h("QS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
    h("AD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
    h("AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS"),
]


def decide(g: Game, seat: int) -> dict:
    assert g.to_act[0] == seat
    return RULE.decide(g.view(seat))


def test_dumps_the_queen_when_void_in_the_led_suit():
    g = Game.new(Rules(passing="off", no_points_first_trick=False), deals=[QUEEN_DUMP])
    g.play(0, "2C")
    assert decide(g, 1) == {"type": "play", "card": "QS"}


def test_dumps_the_highest_heart_when_void_and_without_the_queen():
    g = Game.new(Rules(passing="off", no_points_first_trick=False), deals=[QUEEN_DUMP])
    g.play(0, "2C")
    g.play(1, "QS")
    assert decide(g, 2) == {"type": "play", "card": "KH"}


def test_plays_its_highest_card_on_the_first_trick_when_no_points_can_fall():
    deal = [
        h("2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"),
        h("3C 9C KC 2H 3H 4H 5H 6H 7H 8H 9H TH 2D"),
        h("4C 5C 6C 7C 8C TC JC QC AC JH QH KH AH"),
        h("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ]
    g = Game.new(Rules(passing="off"), deals=[deal])
    g.play(0, "2C")
    assert decide(g, 1)["card"] == "KC"


# seat 1 leads (old rules, hearts any time); seat 2 holds 3H 8H KH
DUCK = [
    h("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
    h("9H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
    h("3H 8H KH AD 2S 3S 4S 5S 6S 7S 8S 9S TS"),
    h("2H 4H 5H 6H 7H TH JH QH AH JS QS KS AS"),
]
DUCK_RULES = Rules(passing="off", first_lead="left_of_dealer", hearts_any_time=True, no_points_first_trick=False)


def test_ducks_under_the_winning_card():
    g = Game.new(DUCK_RULES, deals=[DUCK])
    g.play(1, "9H")
    assert decide(g, 2)["card"] == "8H"


def test_takes_the_trick_with_its_highest_card_when_it_must_win_and_is_last():
    g = Game.new(DUCK_RULES, deals=[DUCK])
    g.play(1, "9H")
    g.play(2, "KH")
    g.play(3, "AH")
    assert decide(g, 0)["card"] == "AC"  # void: nothing to lose, shed the highest card


def test_drops_the_queen_on_the_king_of_spades():
    deal = [
        h("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC 2S QS"),
        h("KS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KC"),
        h("AC AD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"),
        h("KD KH AH 3S 4S 5S 6S 7S 8S 9S TS JS AS"),
    ]
    g = Game.new(Rules(passing="off", first_lead="left_of_dealer", no_points_first_trick=False), deals=[deal])
    g.play(1, "KS")
    g.play(2, "AC")  # void in spades
    g.play(3, "3S")
    assert decide(g, 0)["card"] == "QS"


def test_smokes_out_the_queen_with_low_spades():
    g = Game.new(DUCK_RULES, deals=[[DUCK[0], DUCK[2], DUCK[3], DUCK[1]]])
    # seat 1 now holds 3H 8H KH AD and low spades, no Q♠: it leads its lowest spade
    assert decide(g, 1)["card"] == "2S"


def test_takes_a_point_to_stop_a_moon_shot():
    deal = [
        h("4H 7H TH 3D KD TD JD QD AD JS QS KS AS"),
        h("AH KH QH 5D 2C 3C 4C 5C 6C 7C 8C 9C TC"),
        h("2H 5H 8H 2D JC QC KC AC 4D 6D 7D 8D 9D"),
        h("3H 6H 9H JH 2S 3S 4S 5S 6S 7S 8S 9S TS"),
    ]
    g = Game.new(DUCK_RULES, deals=[deal])
    for cards in (("AH", "2H", "3H", "4H"), ("KH", "5H", "6H", "7H"), ("QH", "8H", "9H", "TH")):
        for i, c in enumerate(cards):
            g.play((1 + i) % 4, c)
    assert g.view(0)["points_taken"] == [0, 12, 0, 0]
    g.play(1, "5D")
    g.play(2, "2D")
    g.play(3, "JH")
    # ducking with 3D would hand seat 1 its 13th heart; take it with the lowest winner
    assert decide(g, 0)["card"] == "TD"


def pass_of(hand: str, **rules) -> set[str]:
    g = Game.new(Rules(**rules), seed=1)
    view = g.view(0)
    view["hand"] = hand.split()
    return set(RULE.decide(view)["cards"])


def test_passes_a_bare_queen_of_spades():
    assert "QS" in pass_of("QS 3S 2C 5C 9C JC 4D 8D TD 3H 6H 9H QH")


def test_passes_high_spades_when_short_of_spades():
    assert pass_of("AS KS 3S 2C 5C 9C JC 4D 8D TD 3H 6H 9H") >= {"AS", "KS"}


def test_keeps_the_queen_behind_four_low_spades():
    passed = pass_of("QS 2S 4S 6S 8S 2C 5C 9C JC 4D 8D KH AH")
    assert "QS" not in passed and not passed & {"2S", "4S", "6S", "8S"}


def test_voids_a_short_suit():
    assert pass_of("2C 4C 6C 8C TC QC 4D 9D 5S 7S 9S 3H 6H") >= {"4D", "9D"}


def test_passes_high_hearts_over_low_side_cards():
    passed = pass_of("2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S AH KH")
    assert {"AH", "KH"} <= passed
