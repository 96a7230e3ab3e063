"""One scenario per rule and option of docs/rules.md, with explicit deals."""

from __future__ import annotations

import pytest

from engine import Card, Game, IllegalMove, Rules
from tests.engine.helpers import (
    MOON_DEAL,
    MOON_KEEP,
    SUITED,
    hands,
    new,
    play_hand,
    scored,
)

# Seat 0 leads 2C, seat 1 wins trick 1 with 3C and leads trick 2 holding clubs and 2 hearts.
HEARTS_DEAL = hands(
    "2C AC AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H 3H",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)
# Like HEARTS_DEAL, but seat 1 holds QS and 2H; seat 3 holds 3H.
QUEEN_DEAL = hands(
    "2C AC AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC QS 2H",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS 3H",
)


def codes(fn, *args) -> str:
    with pytest.raises(IllegalMove) as exc:
        fn(*args)
    return exc.value.code


def play(g: Game, *moves: str) -> list:
    out = []
    for m in moves:
        out += g.play(g.to_act[0], m)
    return out


# ---------------------------------------------------------------- table and deck
def test_four_players_get_thirteen_cards_each_and_seat_0_deals_first():
    g = Game.new(Rules(), seed=1)
    assert [len(g.hand(s)) for s in range(4)] == [13] * 4
    assert g.dealer == 0 and g.hand_number == 1


def test_three_players_remove_the_two_of_diamonds():
    g = Game.new(Rules(players=3), seed=2)
    dealt = [c for s in range(3) for c in g.hand(s)]
    assert [len(g.hand(s)) for s in range(3)] == [17] * 3
    assert Card.parse("2D") not in dealt and len(set(dealt)) == 51


def test_five_players_remove_two_of_diamonds_and_two_of_clubs_and_three_of_clubs_leads():
    g = Game.new(Rules(players=5, passing="off"), seed=3)
    dealt = {c for s in range(5) for c in g.hand(s)}
    assert [len(g.hand(s)) for s in range(5)] == [10] * 5
    assert Card.parse("2D") not in dealt and Card.parse("2C") not in dealt
    (seat,) = g.to_act
    assert Card.parse("3C") in g.hand(seat)
    assert [str(c) for c in g.legal_plays(seat)] == ["3C"]


def test_removed_cards_are_configurable_and_the_lowest_club_leads():
    g = Game.new(Rules(players=3, removed_cards=("2C",), passing="off"), seed=4)
    dealt = {str(c) for s in range(3) for c in g.hand(s)}
    assert "2C" not in dealt and "2D" in dealt
    assert [str(c) for c in g.legal_plays(g.to_act[0])] == ["3C"]


def test_kitty_deals_every_card_and_keeps_the_odd_ones_face_down():
    g3 = Game.new(Rules(players=3, leftover="kitty"), seed=5)
    g5 = Game.new(Rules(players=5, leftover="kitty"), seed=5)
    assert [len(g3.hand(s)) for s in range(3)] == [17] * 3
    assert len(g3.events[1].kitty) == 1
    assert [len(g5.hand(s)) for s in range(5)] == [10] * 5
    assert len(g5.events[1].kitty) == 2
    assert g3.view(0)["kitty"] is None and g3.view(0)["kitty_size"] == 1


KITTY_DEAL = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
    "6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "TS JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "AH",
)


def test_first_trick_winner_takes_the_kitty_and_its_points():
    g = new(KITTY_DEAL, players=3, leftover="kitty")
    assert g.view(1)["kitty"] is None
    out = play(g, "2C", "6D", "TS")
    taken = out[-1]
    assert taken.type == "TrickTaken" and taken.winner == 0
    assert [str(c) for c in taken.kitty] == ["AH"] and taken.points == 1
    assert g.hand_points == [1, 0, 0]
    assert g.view(2)["kitty"] == ["AH"] and g.view(2)["kitty_taken_by"] == 0


def test_lowest_club_dealt_leads_when_the_two_of_clubs_is_in_the_kitty():
    deal = hands(
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D",
        "7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
        "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2C",
    )
    g = new(deal, players=3, leftover="kitty")
    assert g.to_act == (0,) and [str(c) for c in g.legal_plays(0)] == ["3C"]
    assert codes(g.play, 0, "AC") == "must_lead_two_of_clubs"


def test_dealer_moves_one_seat_left_each_hand():
    g = new(SUITED, moon="off")
    play_hand(g)
    assert (g.hand_number, g.dealer) == (2, 1)


# ---------------------------------------------------------------- passing
def test_pass_cycle_four_players_left_right_across_none():
    r = Rules()
    assert [r.pass_direction(k) for k in range(1, 9)] == ["left", "right", "across", "none"] * 2


def test_pass_cycle_three_and_five_players_left_right_none():
    for n in (3, 5):
        r = Rules(players=n)
        assert [r.pass_direction(k) for k in range(1, 7)] == ["left", "right", "none"] * 2


def test_always_pass_left_and_passing_off():
    assert {Rules(passing="left").pass_direction(k) for k in range(1, 9)} == {"left"}
    g = Game.new(Rules(passing="off"), seed=1)
    assert g.pass_direction == "none" and g.phase == "playing"


def test_no_pass_hand_goes_straight_to_play():
    g = Game.new(Rules(), seed=1, deals=[SUITED] * 4)
    for _ in range(3):
        assert g.phase == "passing"
        for s in range(4):
            g.pass_cards(s, g.hand(s)[:3])
        play_hand(g)
    assert g.hand_number == 4 and g.pass_direction == "none" and g.phase == "playing"


@pytest.mark.parametrize(("hand", "offset"), [(1, 1), (2, -1), (3, 2)])
def test_passed_cards_go_left_right_and_across(hand, offset):
    g = Game.new(Rules(), seed=11)
    while g.hand_number < hand:
        for s in range(4):
            g.pass_cards(s, g.hand(s)[:3])
        play_hand(g)
    before = [g.hand(s) for s in range(4)]
    for s in range(4):
        g.pass_cards(s, before[s][:3])
    for s in range(4):
        t = (s + offset) % 4
        assert set(before[s][:3]) <= set(g.hand(t))
        assert not set(before[s][:3]) & set(g.hand(s))


def test_received_cards_stay_hidden_until_everybody_has_passed():
    g = Game.new(Rules(), seed=12)
    given = g.hand(0)[:3]
    g.pass_cards(0, given)
    assert g.to_act == (1, 2, 3)
    v1 = g.view(1)
    assert v1["received"] is None and v1["passed"] is None and v1["passed_seats"] == [0]
    assert not set(map(str, given)) & set(v1["hand"])
    assert g.view(0)["passed"] == [str(c) for c in given]
    assert g.view(0)["hand"] == [str(c) for c in g.hand(0)]
    for s in (1, 2, 3):
        g.pass_cards(s, g.hand(s)[:3])
    assert g.view(1)["received"] == [str(c) for c in given]
    assert g.view(1)["received_from"] == 0
    assert g.phase == "playing"


# each seat holds 10 of "its" suit and 3 of its left neighbour's: after passing left
# the hands are SUITED
TIE_PREPASS = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC 2H 3H 4H",
    "5H 6H 7H 8H 9H TH JH QH KH AH 2D 3D 4D",
    "5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S",
    "5S 6S 7S 8S 9S TS JS QS KS AS QC KC AC",
)


def test_ties_for_lowest_keep_dealing_and_the_pass_cycle_runs_on():
    g = Game.new(Rules(moon="off", end_score=26), seed=3, deals=[TIE_PREPASS])
    passes = ["2H 3H 4H", "2D 3D 4D", "2S 3S 4S", "QC KC AC"]
    for s in range(4):
        g.pass_cards(s, passes[s].split())
    assert [str(c) for c in g.hand(0)] == SUITED[0]
    out = play_hand(g)
    assert scored(out)["totals"] == [26, 0, 0, 0]
    assert g.phase == "passing" and g.winner is None
    assert (g.hand_number, g.pass_direction, g.dealer) == (2, "right", 1)


def test_pass_errors_have_codes():
    g = Game.new(Rules(), seed=13)
    h = [str(c) for c in g.hand(0)]
    assert codes(g.pass_cards, 0, h[:2]) == "pass_needs_three_cards"
    assert codes(g.pass_cards, 0, h[:4]) == "pass_needs_three_cards"
    assert codes(g.pass_cards, 0, [h[0], h[0], h[1]]) == "pass_needs_three_cards"
    assert codes(g.pass_cards, 0, "2C") == "pass_needs_three_cards"
    assert codes(g.pass_cards, 0, [h[0], h[1], "ZZ"]) == "invalid_card"
    other = str(g.hand(1)[0])
    assert codes(g.pass_cards, 0, [h[0], h[1], other]) == "card_not_in_hand"
    assert codes(g.pass_cards, 9, h[:3]) == "invalid_seat"
    assert codes(g.play, 0, h[0]) == "wrong_phase"
    assert codes(g.choose_moon, 0, "add_to_others") == "wrong_phase"
    g.pass_cards(0, h[:3])
    assert codes(g.pass_cards, 0, h[3:6]) == "already_passed"


# ---------------------------------------------------------------- play
def test_the_two_of_clubs_leads_the_first_trick():
    g = new(MOON_DEAL)
    assert g.to_act == (1,)
    assert [str(c) for c in g.legal_plays(1)] == ["2C"]
    assert codes(g.play, 1, "JD") == "must_lead_two_of_clubs"


def test_old_rules_left_of_dealer_leads_any_card_within_the_hearts_and_first_trick_rules():
    g = new(MOON_DEAL, first_lead="left_of_dealer")
    assert g.to_act == (1,)
    assert [str(c) for c in g.legal_plays(1)] == ["2C", "JD"]
    assert codes(g.play, 1, "2H") == "no_points_on_first_trick"
    g2 = new([MOON_DEAL[0], MOON_DEAL[2], MOON_DEAL[1], MOON_DEAL[3]], first_lead="left_of_dealer")
    assert "QS" not in [str(c) for c in g2.legal_plays(1)]
    assert codes(g2.play, 1, "QS") == "no_points_on_first_trick"
    g3 = new(
        [MOON_DEAL[0], MOON_DEAL[2], MOON_DEAL[1], MOON_DEAL[3]],
        first_lead="left_of_dealer",
        no_points_first_trick=False,
    )
    assert "QS" in [str(c) for c in g3.legal_plays(1)]
    assert codes(g3.play, 1, "KH") == "hearts_not_broken"
    g.play(1, "JD")
    assert g.to_act == (2,)


def test_following_suit_beats_the_first_trick_rule():
    deal = hands(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS 2D",
        "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH 3D",
        "4D 5D 6D 7D 8D 9D TD JD QD KD AD KH AH",
    )
    g = new(deal, first_lead="left_of_dealer")
    g.play(1, "2S")
    assert [str(c) for c in g.legal_plays(2)] == ["QS"]


def test_must_follow_suit():
    g = new(MOON_DEAL)
    play(g, "2C", "3D", "5D")
    assert codes(g.play, 0, "2D") == "must_follow_suit"
    assert all(c.suit == 0 for c in g.legal_plays(0))


def test_highest_card_of_the_led_suit_wins_and_its_winner_leads_next():
    g = new(MOON_DEAL)
    out = play(g, "2C", "3D", "5D", "AC")
    assert out[-1].type == "TrickTaken" and out[-1].winner == 0 and out[-1].leader == 1
    assert g.to_act == (0,)


def test_not_your_turn_card_not_in_hand_and_invalid_card():
    g = new(MOON_DEAL)
    assert codes(g.play, 0, "AC") == "not_your_turn"
    assert codes(g.play, 1, "AC") == "card_not_in_hand"
    assert codes(g.play, 1, "1Z") == "invalid_card"
    assert codes(g.play, 5, "2C") == "invalid_seat"


def test_hearts_cannot_be_led_until_broken():
    g = new(HEARTS_DEAL)
    play(g, "2C", "3C", "2D", "2S")
    assert g.to_act == (1,)
    assert codes(g.play, 1, "2H") == "hearts_not_broken"
    assert not {str(c) for c in g.legal_plays(1)} & {"2H", "3H"}


def test_hearts_may_be_led_when_only_hearts_are_held():
    g = new(HEARTS_DEAL)
    play(g, "2C", "3C", "2D", "2S", "4C", "3D", "3S", "AC")
    assert g.to_act == (0,) and not g.hearts_broken
    assert all(c.suit == 2 for c in g.legal_plays(0)) and len(g.legal_plays(0)) == 11


def test_hearts_may_be_led_once_broken():
    g = new(HEARTS_DEAL)
    play(g, "2C", "3C", "2D", "2S", "4C", "3D", "3S", "AC")
    play(g, "4H", "2H", "4D", "4S")  # seat 0 leads its only suit; seat 1 follows
    assert g.hearts_broken
    g2 = new(QUEEN_DEAL)
    play(g2, "2C", "3C", "2D", "2S", "4C", "3D", "3S", "AC", "4H", "2H", "4D", "3H")
    assert g2.hearts_broken and g2.to_act == (0,)


def test_hearts_any_time_option_allows_leading_hearts_before_they_are_broken():
    g = new(HEARTS_DEAL, hearts_any_time=True)
    play(g, "2C", "3C", "2D", "2S")
    assert "2H" in [str(c) for c in g.legal_plays(1)]
    play(g, "2H")


def test_queen_of_spades_may_be_led_any_time_and_does_not_break_hearts():
    g = new(QUEEN_DEAL)
    play(g, "2C", "3C", "2D", "2S")
    assert g.to_act == (1,) and "QS" in [str(c) for c in g.legal_plays(1)]
    out = play(g, "QS", "3D", "3S", "AC")
    assert out[-1].winner == 1 and out[-1].points == 13
    assert not g.hearts_broken
    assert codes(g.play, 1, "2H") == "hearts_not_broken"


def test_queen_breaks_hearts_option():
    g = new(QUEEN_DEAL, queen_breaks_hearts=True)
    play(g, "2C", "3C", "2D", "2S", "QS", "3D", "3S", "AC")
    assert g.hearts_broken
    assert "2H" in [str(c) for c in g.legal_plays(1)]


def test_no_points_on_the_first_trick():
    g = new(MOON_DEAL)
    g.play(1, "2C")
    assert codes(g.play, 2, "KH") == "no_points_on_first_trick"
    assert codes(g.play, 2, "QS") == "no_points_on_first_trick"
    assert [str(c) for c in g.legal_plays(2)] == ["3D", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]


def test_no_points_on_the_first_trick_unless_the_hand_holds_nothing_else():
    g = new(SUITED)
    g.play(0, "2C")
    assert len(g.legal_plays(1)) == 13  # only hearts
    deal = hands(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
    )
    g2 = new(deal)
    g2.play(0, "2C")
    assert "QS" in [str(c) for c in g2.legal_plays(1)]
    g2.play(1, "QS")


def test_points_allowed_on_the_first_trick_when_the_option_is_off():
    g = new(MOON_DEAL, no_points_first_trick=False)
    g.play(1, "2C")
    assert {"KH", "QS"} <= {str(c) for c in g.legal_plays(2)}
    g.play(2, "KH")


# ---------------------------------------------------------------- scoring
def test_each_heart_is_one_point_and_the_queen_of_spades_thirteen():
    g = new(QUEEN_DEAL)
    out = play(g, "2C", "3C", "2D", "2S", "QS", "3D", "3S", "AC")
    assert out[-1].points == 13
    out = play(g, "4C", "4D", "4S", "AH")
    assert out[-1].points == 1 and out[-1].winner == 1
    assert g.hand_points == [0, 14, 0, 0]


def test_shooting_the_moon_gives_everyone_else_26():
    g = new(MOON_DEAL)
    sc = scored(play_hand(g, MOON_KEEP))
    assert sc["points"] == [0, 26, 26, 26] and sc["shooter"] == 0
    assert sc["moon"] == "add_to_others"


def test_moon_variant_shooter_subtracts_26():
    sc = scored(play_hand(new(SUITED, moon="subtract_from_self")))
    assert sc["points"] == [-26, 0, 0, 0] and sc["moon"] == "subtract_from_self"


def test_moon_off_the_taker_just_scores_26():
    sc = scored(play_hand(new(SUITED, moon="off")))
    assert sc["points"] == [26, 0, 0, 0] and sc["shooter"] is None


def test_moon_variant_shooter_chooses_is_a_command_and_an_event():
    g = new(SUITED, moon="shooter_chooses")
    out = play_hand(g)
    assert out[-1].type == "MoonChoiceRequested" and out[-1].seat == 0
    assert g.phase == "moon_choice" and g.to_act == (0,)
    assert g.view(2)["moon"] == {"shooter": 0, "awaiting_choice": True}
    assert codes(g.play, 0, "2C") == "wrong_phase"
    assert codes(g.choose_moon, 1, "add_to_others") == "not_your_turn"
    assert codes(g.choose_moon, 0, "both") == "invalid_choice"
    out = g.choose_moon(0, "subtract_from_self")
    assert [e.type for e in out[:3]] == ["MoonChosen", "HandScored", "HandDealt"]
    assert out[1].points == (-26, 0, 0, 0) and out[1].moon == "subtract_from_self"
    g2 = new(SUITED, moon="shooter_chooses")
    play_hand(g2)
    assert g2.choose_moon(0, "add_to_others")[1].points == (0, 26, 26, 26)


def test_jack_of_diamonds_minus_ten():
    sc = scored(play_hand(new(MOON_DEAL, jack_of_diamonds=True, moon="off"), MOON_KEEP))
    assert sc["points"] == [26, -10, 0, 0]


def test_jack_of_diamonds_counts_when_another_player_shoots_the_moon():
    sc = scored(play_hand(new(MOON_DEAL, jack_of_diamonds=True), MOON_KEEP))
    assert sc["points"] == [0, 16, 26, 26] and sc["shooter"] == 0


def test_shooter_with_the_jack_of_diamonds_scores_minus_ten():
    sc = scored(play_hand(new(SUITED, jack_of_diamonds=True)))
    assert sc["points"] == [-10, 26, 26, 26]
    sc = scored(play_hand(new(SUITED, jack_of_diamonds=True, moon="subtract_from_self")))
    assert sc["points"] == [-36, 0, 0, 0]


def test_black_maria_king_ten_and_ace_seven_of_spades():
    sc = scored(play_hand(new(SUITED, black_maria=True, moon="off")))
    assert sc["points"] == [43, 0, 0, 0]


def test_black_maria_counts_on_top_of_the_moon():
    sc = scored(play_hand(new(MOON_DEAL, black_maria=True), MOON_KEEP))
    assert sc["points"] == [17, 26, 26, 26] and sc["shooter"] == 0
    sc = scored(play_hand(new(MOON_DEAL, black_maria=True, jack_of_diamonds=True), MOON_KEEP))
    assert sc["points"] == [17, 16, 26, 26]


def test_the_game_ends_after_the_hand_in_which_someone_reaches_the_end_score():
    g = new(MOON_DEAL, end_score=26)
    out = play_hand(g, MOON_KEEP)
    assert out[-1].type == "GameEnded" and out[-1].winner == 0
    assert g.phase == "game_over" and g.winner == 0 and g.to_act == ()
    g2 = new(MOON_DEAL, end_score=27)
    play_hand(g2, MOON_KEEP)
    assert g2.phase == "playing" and g2.winner is None and g2.hand_number == 2


def test_short_game_ends_at_50():
    g = Game.new(Rules(end_score=50, passing="off"), seed=1, deals=[MOON_DEAL, MOON_DEAL])
    play_hand(g, MOON_KEEP)
    assert g.phase == "playing"
    play_hand(g, MOON_KEEP)
    assert g.phase == "game_over" and g.totals == [0, 52, 52, 52] and g.winner == 0


def test_exact_end_score_resets_to_half_before_the_end_is_checked():
    g = new(SUITED, moon="off", end_score=26, exact_end_score_halves=True)
    sc = scored(play_hand(g))
    assert sc["totals"] == [13, 0, 0, 0] and sc["resets"] == [0]
    assert g.phase == "playing" and g.hand_number == 2
    g2 = new(SUITED, moon="off", end_score=26)
    play_hand(g2)
    assert g2.totals == [26, 0, 0, 0] and g2.phase == "playing"  # three share the lowest


def test_a_rejected_command_changes_nothing():
    g = new(QUEEN_DEAL)
    play(g, "2C", "3C", "2D", "2S")
    before, n = g.state_dict(), len(g.events)
    for seat, card in [(1, "2H"), (0, "AC"), (1, "AS"), (1, "XX"), (7, "2H")]:
        with pytest.raises(IllegalMove):
            g.play(seat, card)
    with pytest.raises(IllegalMove):
        g.pass_cards(1, ["3C", "4C", "5C"])
    with pytest.raises(IllegalMove):
        g.choose_moon(1, "add_to_others")
    assert g.state_dict() == before and len(g.events) == n
