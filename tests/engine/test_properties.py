"""Hypothesis properties over random games, for every combination of the rules."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VIEWER_DEPENDENT_EVENTS, Card, Game, IllegalMove, ReplayError, Rules, event_from_dict, redact
from engine.cards import NAMES, mask_of
from engine.fast import from_view
from tests.engine import oracle

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CARD_NAMES = set(NAMES)
REMOVABLE = [c for c in NAMES if c[1] in "CDS" and c not in ("QS", "KS", "AS", "JD")]


@st.composite
def rules_st(draw) -> Rules:
    players = draw(st.sampled_from([3, 4, 5]))
    leftover = draw(st.sampled_from(["remove", "kitty"]))
    removed = None
    if leftover == "remove" and players != 4 and draw(st.booleans()):
        k = 52 % players
        removed = tuple(draw(st.lists(st.sampled_from(REMOVABLE), min_size=k, max_size=k, unique=True)))
    hearts = draw(st.sampled_from(["broken", "any_time", "queen_breaks"]))
    return Rules(
        players=players,
        leftover=leftover,
        removed_cards=removed,
        passing=draw(st.sampled_from(["cycle", "left", "off"])),
        first_lead=draw(st.sampled_from(["lowest_club", "left_of_dealer"])),
        no_points_first_trick=draw(st.booleans()),
        hearts_any_time=hearts == "any_time",
        queen_breaks_hearts=hearts == "queen_breaks",
        jack_of_diamonds=draw(st.booleans()),
        black_maria=draw(st.booleans()),
        moon=draw(st.sampled_from(["add_to_others", "subtract_from_self", "shooter_chooses", "off"])),
        end_score=draw(st.sampled_from([1, 26, 50, 100])),
        exact_end_score_halves=draw(st.booleans()),
    )


def card_strings(obj, out: set[str]) -> set[str]:
    """Every card name in a JSON-like structure (the "rules" subtree excluded)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert k != "seed"
            if k not in ("rules", "removed_cards"):  # public: from the rules
                card_strings(v, out)
    elif isinstance(obj, list | tuple):
        for v in obj:
            card_strings(v, out)
    elif isinstance(obj, str) and obj in CARD_NAMES:
        out.add(obj)
    return out


class Checker:
    """Plays one random game and checks it against the oracle at every step."""

    def __init__(self, rules: Rules, rng: random.Random, *, legality=True, views=True, fast=True) -> None:
        self.rules, self.rng = rules, rng
        self.legality, self.views, self.fast = legality, views, fast
        self.g = Game.new(rules, seed=rng.randrange(10**6))
        self.n = rules.players
        self.visible: dict[int | None, set[str]] = {}
        self.redacted: dict[int | None, int] = {}

    # -- oracle state of the hand in play
    def start_hand(self) -> None:
        g = self.g
        self.hands = [[str(c) for c in g.hand(s)] for s in range(self.n)]
        self.first_card = oracle.first_lead_card(self.rules, self.hands)
        self.trick: list[str] = []
        self.leader = g.state.leader
        self.tricks = 0
        self.broken = False
        self.taken: list[list[str]] = [[] for _ in range(self.n)]
        self.kitty = [str(c) for c in g.events[-1].kitty] if g.events[-1].type == "HandDealt" else self.kitty
        self.shadow = g.state.copy()
        if self.first_card is None:
            assert self.leader == (g.dealer + 1) % self.n
        else:
            assert self.first_card in self.hands[self.leader]

    def run(self) -> Game:
        g = self.g
        self.kitty = [str(c) for c in g.events[1].kitty]
        hand_no = 0
        while g.phase != "game_over":
            assert len(g.events) < 20000
            if g.hand_number != hand_no:
                hand_no = g.hand_number
                self.kitty = [str(c) for c in next(e for e in reversed(g.events) if e.type == "HandDealt").kitty]
                assert g.dealer == (hand_no - 1) % self.n
                assert g.pass_direction == self.rules.pass_direction(hand_no)
                if g.phase == "playing":
                    self.start_hand()
            if g.phase == "passing":
                self.passing_step()
                if g.phase == "playing":
                    self.start_hand()
            elif g.phase == "playing":
                self.play_step()
            else:
                self.moon_step()
        return g

    def passing_step(self) -> None:
        g, rng = self.g, self.rng
        seat = rng.choice(g.to_act)
        hand = g.hand(seat)
        if self.legality:
            self.refused(lambda: g.pass_cards(seat, hand[:2]), {"pass_needs_three_cards"})
            other = next(c for c in map(Card, range(52)) if c not in hand)
            self.refused(lambda: g.pass_cards(seat, [*hand[:2], other]), {"card_not_in_hand"})
            self.refused(lambda: g.play(seat, hand[0]), {"wrong_phase"})
        if self.views:
            self.check_views()
        g.pass_cards(seat, rng.sample(hand, 3))
        if self.legality:
            code = "already_passed" if g.phase == "passing" else "wrong_phase"
            self.refused(lambda: g.pass_cards(seat, hand[:3]), {code})

    def play_step(self) -> None:
        g, rng, rules = self.g, self.rng, self.rules
        seat = g.to_act[0]
        legal = [str(c) for c in g.legal_plays(seat)]
        expect = oracle.legal(rules, self.hands[seat], self.trick, self.tricks == 0, self.broken, self.first_card)
        assert set(legal) == expect
        if self.fast:
            assert self.shadow.legal_mask() == mask_of(legal)
            v = g.view(seat)
            true_hands = [mask_of(h) for h in self.hands]
            kitty = mask_of(self.kitty) if self.tricks == 0 else 0
            assert from_view(v, true_hands, kitty).legal_mask() == mask_of(legal)
            assert v["legal_plays"] == sorted(legal, key=NAMES.index)
        if self.legality:
            for c in legal:  # every legal card is accepted ...
                g.copy().play(seat, c)
            for c in self.hands[seat]:  # ... and every other card refused with a code
                if c not in expect:
                    self.refused(
                        lambda c=c: g.play(seat, c),
                        {"must_follow_suit", "hearts_not_broken", "no_points_on_first_trick", "must_lead_two_of_clubs"},
                    )
            other = next(NAMES[i] for i in range(52) if NAMES[i] not in self.hands[seat])
            self.refused(lambda: g.play(seat, other), {"card_not_in_hand"})
            self.refused(lambda: g.play((seat + 1) % self.n, legal[0]), {"not_your_turn"})
            self.refused(lambda: g.choose_moon(seat, "add_to_others"), {"wrong_phase"})
        if self.views and rng.random() < 0.15:
            self.check_views()
        card = rng.choice(legal)
        out = g.play(seat, card)
        self.hands[seat].remove(card)
        self.trick.append(card)
        w = self.shadow.push(Card.parse(card)) if self.fast else None
        if len(self.trick) < self.n:
            assert [e.type for e in out] == ["CardPlayed"]
            return
        winner = oracle.trick_winner(self.trick, self.leader, self.n)
        tt = out[1]
        assert tt.type == "TrickTaken" and tt.winner == winner
        if self.fast:
            assert w == winner
        gained = list(self.trick) + (self.kitty if self.tricks == 0 else [])
        assert tt.points == sum(oracle.points(rules, c) for c in gained)
        self.taken[winner] += gained
        self.broken = self.broken or oracle.breaks_hearts(rules, self.trick)
        self.trick, self.leader = [], winner
        self.tricks += 1
        if self.tricks == rules.hand_size:
            self.hand_over(out[2:])

    def moon_step(self) -> None:
        (seat,) = self.g.to_act
        self.choice = self.rng.choice(["add_to_others", "subtract_from_self"])
        if self.legality:
            self.refused(lambda: self.g.choose_moon(seat, "keep"), {"invalid_choice"})
            self.refused(lambda: self.g.choose_moon((seat + 1) % self.n, self.choice), {"not_your_turn"})
        out = self.g.choose_moon(seat, self.choice)
        assert out[0].type == "MoonChosen"
        self.hand_over(out[1:])

    def hand_over(self, out) -> None:
        rules = self.rules
        if out and out[0].type == "MoonChoiceRequested":
            assert rules.moon == "shooter_chooses"
            self.pending_taken = self.taken
            return
        taken = self.taken
        choice = getattr(self, "choice", None)
        hs = out[0]
        assert hs.type == "HandScored"
        pts, shooter = oracle.score(rules, taken, choice)
        assert list(hs.points) == pts and hs.shooter == shooter
        mode = (choice if rules.moon == "shooter_chooses" else rules.moon) if shooter is not None else None
        assert hs.moon == mode
        assert sum(pts) == oracle.expected_sum(rules, shooter, mode)
        prev = self.g.hand_scores[-2].totals if len(self.g.hand_scores) > 1 else (0,) * self.n
        totals = [a + b for a, b in zip(prev, pts, strict=True)]
        resets = [s for s, t in enumerate(totals) if rules.exact_end_score_halves and t == rules.end_score]
        for s in resets:
            totals[s] = rules.end_score // 2
        assert list(hs.totals) == totals and list(hs.resets) == resets
        ends = max(totals) >= rules.end_score and totals.count(min(totals)) == 1
        assert (self.g.phase == "game_over") == ends
        if ends:
            assert out[1].type == "GameEnded" and out[1].winner == totals.index(min(totals))
            assert self.g.winner == out[1].winner and len(out) == 2
        else:
            assert out[1].type == "HandDealt" and out[1].hand_number == hs.hand_number + 1
        self.choice = None

    def refused(self, fn, allowed: set[str]) -> None:
        g = self.g
        before, n = g.state_dict(), len(g.events)
        try:
            fn()
        except IllegalMove as e:
            assert e.code in allowed, (e.code, allowed)
            assert str(e)
        else:
            raise AssertionError("an illegal command was accepted")
        assert len(g.events) == n and g.state_dict() == before

    def check_views(self) -> None:
        g = self.g
        over = g.phase == "game_over"
        state = g.state
        for seat in [None, *range(self.n)]:
            v = g.view(seat)
            json.dumps(v)
            shown = card_strings(v, set())
            forbidden = set()
            for o in range(self.n):
                if o != seat:
                    forbidden |= {str(c) for c in g.hand(o)}
            if seat is not None and v["passed"]:  # the passer knows where its cards went
                forbidden -= set(v["passed"])
            if state is None or state.tricks_done == 0:
                forbidden |= set(self.kitty)
            if not over:
                assert not shown & forbidden, (seat, shown & forbidden)
            # the view agrees with redaction: it shows nothing the redacted log hides
            visible = self.visible.setdefault(seat, set())
            for e in g.events[self.redacted.get(seat, 0) :]:
                r = redact(e.to_dict(), seat, over)
                if r is not None:
                    card_strings(r, visible)
            self.redacted[seat] = len(g.events)
            assert shown <= visible, shown - visible
        # The table's part, serialised once for every viewer by a server, holds no card in
        # anyone's hand (nor the kitty before it is taken) and none of a seat's own fields.
        table = g.table_view()
        assert not table.keys() & set(Game.SEAT_FIELDS)
        in_hands = {str(c) for o in range(self.n) for c in g.hand(o)}
        if state is None or state.tricks_done == 0:
            in_hands |= set(self.kitty)
        if not over:
            assert not card_strings(table, set()) & in_hands


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False))
def test_random_games_follow_the_rules_and_hand_points_add_up(rules, rng):
    Checker(rules, rng, legality=False, views=False).run()


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False))
def test_every_legal_card_is_accepted_and_every_other_card_refused_with_a_code(rules, rng):
    Checker(rules, rng, views=False, fast=False).run()


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False))
def test_view_never_shows_another_seats_cards_or_an_unrevealed_pass(rules, rng):
    Checker(rules, rng, legality=False, fast=False).run()


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False))
def test_an_event_not_listed_as_viewer_dependent_is_shown_whole_to_everyone_at_every_moment(rules, rng):
    """A server serialises such an event once for all its viewers (VIEWER_DEPENDENT_EVENTS)."""
    g = Checker(rules, rng, legality=False, views=False).run()
    viewers = [None, *range(rules.players)]
    for event in g.events:
        full = event.to_dict()
        forms = {json.dumps(redact(full, viewer, over), sort_keys=True) for viewer in viewers for over in (False, True)}
        if event.type not in VIEWER_DEPENDENT_EVENTS:
            assert forms == {json.dumps(full, sort_keys=True)}, event.type
    assert {event.type for event in g.events} >= {"HandDealt", "CardPlayed", "TrickTaken", "HandScored"}


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False), st.floats(0, 1))
def test_replaying_the_events_gives_an_equal_game(rules, rng, cut):
    g = Checker(rules, rng, legality=False, views=False, fast=False).run()
    assert Game.replay(g.events) == g
    dicts = json.loads(json.dumps([e.to_dict() for e in g.events]))
    assert [event_from_dict(d) for d in dicts] == g.events
    assert Game.replay(dicts) == g
    # a live game cut after any command batch replays too, and goes on identically
    g2 = Game.new(rules, seed=g.seed)
    r = random.Random(1)
    k = int(cut * 40)
    for _ in range(k):
        if g2.phase == "passing":
            s = g2.to_act[0]
            g2.pass_cards(s, r.sample(g2.hand(s), 3))
        elif g2.phase == "playing":
            s = g2.to_act[0]
            g2.play(s, r.choice(g2.legal_plays(s)))
        elif g2.phase == "moon_choice":
            g2.choose_moon(g2.to_act[0], "add_to_others")
    assert Game.replay([e.to_dict() for e in g2.events]) == g2


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False), st.lists(st.floats(0, 1), max_size=4))
def test_extending_a_replayed_prefix_gives_the_game_the_whole_log_gives(rules, rng, cuts):
    """A cached state moved forward by the new events equals a replay of the whole log,
    wherever the log is cut between command batches, in one step or several."""
    g = Checker(rules, rng, legality=False, views=False, fast=False).run()
    log = [e.to_dict() for e in g.events]
    log[0]["seed"] = None  # as in a live game: later hands cannot be dealt again from a seed
    boundaries = [i for i in range(1, len(log) + 1) if _starts_a_command(log, i)]
    first, *points = sorted({boundaries[int(c * (len(boundaries) - 1))] for c in [0.0, *cuts]})
    state, done = Game.replay(log[:first]), first
    for point in [*points, len(log)]:
        state.extend(log[done:point])
        assert state == Game.replay(log[:point])
        done = point
    assert state.events[1:] == g.events[1:] and state.totals == g.totals


def test_extending_with_events_that_do_not_follow_is_refused():
    g = Game.new(Rules(), seed=7)
    state = Game.replay([e.to_dict() for e in g.events])
    seat = g.to_act[0]
    g.pass_cards(seat, g.hand(seat)[:3])
    other = Game.replay([e.to_dict() for e in g.events[:2]])
    wrong = {**g.events[-1].to_dict(), "cards": [str(c) for c in other.hand((seat + 1) % 4)[:3]]}
    with pytest.raises(ReplayError):
        state.extend([wrong])


def _starts_a_command(log: list[dict], i: int) -> bool:
    """Whether a live game's log can end just before ``log[i]`` (between two commands)."""
    return i == len(log) or log[i]["type"] in ("CardsPassed", "CardPlayed", "MoonChosen")


@SETTINGS
@given(rules_st(), st.randoms(use_true_random=False))
def test_the_table_view_kept_between_moves_is_always_the_one_the_game_is_in(rules, rng):
    """``table_view`` hands back the rules, tricks and scores it built before while they are
    unchanged (a server keeps their JSON): at every moment they equal what the game builds with
    nothing kept, moving a copy on never changes what the original shows, and no view handed
    out earlier changes as the game goes on."""
    g = Game.new(rules, seed=rng.randrange(10**6))
    handed_out = []
    while g.phase != "game_over":
        kept = g.table_view()
        assert kept == _built_afresh(g).table_view()
        handed_out.append((kept, copy.deepcopy(kept)))
        ahead = g.copy()
        _one_move(ahead, rng)
        assert g.table_view() == kept
        _one_move(g, rng)
    assert all(view == snapshot for view, snapshot in handed_out)


def _built_afresh(g: Game) -> Game:
    """A copy of ``g`` that keeps nothing from the views ``g`` built (its own rules object too)."""
    fresh = g.copy()
    for kept in ("_rules_memo", "_tricks_memo", "_hand_scores_memo"):
        fresh.__dict__.pop(kept, None)
    fresh.rules = Rules.from_dict(g.rules.to_dict())
    return fresh


def _one_move(g: Game, rng: random.Random) -> None:
    seat = g.to_act[0]
    if g.phase == "passing":
        g.pass_cards(seat, rng.sample(g.hand(seat), 3))
    elif g.phase == "playing":
        g.play(seat, rng.choice(g.legal_plays(seat)))
    else:
        g.choose_moon(seat, rng.choice(["add_to_others", "subtract_from_self"]))
