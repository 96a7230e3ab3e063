"""The validated path: a whole game of Hearts, driven by commands, emitting events.

>>> from engine import Game, Rules
>>> g = Game.new(Rules(passing="off"), seed=7)
>>> g.phase, g.hand_number, g.to_act
(<Phase.PLAYING: 'playing'>, 1, (2,))
>>> [str(c) for c in g.legal_plays(2)]
['2C']
>>> [e.type for e in g.play(2, "2C")]
['CardPlayed']
>>> g.play(2, "3C")
Traceback (most recent call last):
...
engine.game.IllegalMove: It is not your turn: Seat 4 plays next.
>>> Game.replay([e.to_dict() for e in g.events]) == g
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from .cards import _PARSE, CARDS, FULL_DECK, HEARTS, NAMES, SUIT_NAMES, Card, cards_of
from .core import (
    FIRST_TRICK_BANNED,
    FIRST_TRICK_SAFE,
    QS_BIT,
    Phase,
    PlayState,
    mask_points,
    moon_shooter,
    score_hand,
)
from .events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameEnded,
    GameStarted,
    HandDealt,
    HandScored,
    MoonChoiceRequested,
    MoonChosen,
    PassCompleted,
    TrickTaken,
    event_from_dict,
)
from .redact import can_see_kitty
from .rules import MOON_CHOICES, Rules

PASS_OFFSETS = {"left": 1, "right": -1, "across": 2, "none": 0}

# Events are immutable values: the 5 x 52 possible CardPlayed events are made once.
_CARD_PLAYED = tuple(tuple(CardPlayed(s, c) for c in CARDS) for s in range(5))


class IllegalMove(ValueError):
    """A command the rules refuse.  ``code`` is stable; the message is for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ReplayError(ValueError):
    """An event log that this engine would not have produced."""


class _EndsInsideCommand(ReplayError):
    """The log stops part-way through the events of one command (a replay position).

    ``start`` is the index of the command's first event, ``game`` the game after the whole
    command (the events it would have produced after the log's end are not trusted)."""

    def __init__(self, start: int, game: Game) -> None:
        super().__init__(f"the log ends inside the events of command {start}")
        self.start = start
        self.game = game


_S = TypeVar("_S")  # what Game._kept builds a view from, and the view
_V = TypeVar("_V")


class Game:
    """A game of Hearts.  Build one with ``Game.new`` or ``Game.replay``.

    Commands (``pass_cards``, ``play``, ``choose_moon``) validate, raise
    ``IllegalMove`` without changing anything, or apply and return the new events
    (also appended to ``game.events``).
    """

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str] | None = None,
        seed: int | str | None = None,
        deals: list[tuple[list[int], int]] | None = None,
        _replaying: bool = False,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules")
        n = rules.players
        if players is None:
            players = tuple(f"Seat {i + 1}" for i in range(n))
        players = tuple(players)
        if len(players) != n or not all(isinstance(p, str) for p in players):
            raise ValueError(f"players must be {n} names")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | str)):
            raise ValueError("seed must be an int or a str")
        self.rules = rules
        self.players = players
        self.seed = seed
        self.events: list[Event] = []
        self.phase = Phase.PASSING
        self.hand_number = 0
        self.dealer = 0
        self.pass_direction = "none"
        self.totals = [0] * n
        self.hand_scores: list[HandScored] = []
        self.winner: int | None = None
        self._n = n
        self._deck = FULL_DECK & ~rules.removed_mask
        self._deals = list(deals or ())
        self._sysrand: random.Random | None = None
        self._replaying = _replaying
        self._awaiting_deal = False
        self._dealt: tuple[tuple[int, ...], int] = ((0,) * n, 0)
        self._hands = [0] * n  # during passing; during play the PlayState's hands
        self._kitty = 0
        self._passes: list[int | None] = [None] * n
        self._received: tuple[tuple[int, int], ...] | None = None
        self._state: PlayState | None = None
        self._tricks: list[tuple[int, tuple[Card, ...], int, int]] = []
        self._kitty_taken: tuple[Card, ...] | None = None
        self._shooter: int | None = None

    # ------------------------------------------------------------------ building
    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        seed: int | str | None = None,
        deals: Iterable[Sequence[Iterable[Card | str]]] | None = None,
        players: Sequence[str] | None = None,
    ) -> Game:
        """Start a game and deal hand 1.

        ``deals``: one entry per hand, in order: N hands (lists of cards or strings),
        plus the kitty as an extra list when the rules have one.  Later hands are dealt
        from ``random.Random(f"{seed}:{hand_number}")``, or OS randomness without a seed.
        """
        rules = rules if rules is not None else Rules()
        parsed = [_parse_deal(rules, d) for d in deals or ()]
        g = cls(rules, players, seed, parsed)
        g._emit(GameStarted(rules, g.players, seed))
        g._next_hand()
        return g

    @classmethod
    def replay(
        cls, events: Iterable[Event | dict[str, Any]], deals: Iterable[Sequence[Iterable[Card | str]]] | None = None
    ) -> Game:
        """Rebuild a game from its events, re-executing every command with validation.

        Hands come from the HandDealt events (the seed is never needed).  ``deals`` are the
        explicit deals the game was created with (as for ``Game.new``): hands beyond the log
        are dealt from them, so a rebuilt game goes on exactly as the original would.
        Raises ReplayError if the log is not what this engine would have produced.
        """
        items = list(events)
        if not items:
            raise ReplayError("an event log starts with GameStarted")
        return cls._replay_items(items, deals, deal_pending=True, stop_inside=False)

    @classmethod
    def _replay_items(
        cls,
        items: list[Event | dict[str, Any]],
        deals: Iterable[Sequence[Iterable[Card | str]]] | None,
        *,
        deal_pending: bool,
        stop_inside: bool,
    ) -> Game:
        first = items[0] if isinstance(items[0], Event) else event_from_dict(items[0])
        if type(first) is not GameStarted:
            raise ReplayError("an event log starts with GameStarted")
        planned = [_parse_deal(first.rules, d) for d in deals or ()]
        g = cls(first.rules, first.players, first.seed, planned, _replaying=True)
        g.events.append(first)
        g._next_hand()
        g._apply_log(items, 1, deal_pending=deal_pending, stop_inside=stop_inside)
        return g

    @classmethod
    def position(
        cls,
        events: Iterable[Event | dict[str, Any]],
        count: int,
        deals: Iterable[Sequence[Iterable[Card | str]]] | None = None,
    ) -> Position:
        """The game as it stood after the first ``count`` events of its log: a replay's step.

        Any ``count`` from 1 to the log's length works, inside a command's events too: after
        the card that completes a trick and before ``TrickTaken``, the trick lies on the table;
        after a hand's last ``TrickTaken``, the hand is over but not scored. Nothing is dealt
        that the log does not hold: before a ``HandDealt`` the position is ``dealing``, with
        no cards. Every event up to ``count`` is validated as ``replay`` does.

        >>> g = Game.new(Rules(passing="off"), seed=7)
        >>> log = [e.to_dict() for e in g.events]
        >>> Game.position(log, 1).view(0)["phase"], Game.position(log, 1).view(0)["hand"]
        (<Phase.DEALING: 'dealing'>, [])
        """
        items = list(events)[:count]
        if count < 1 or not items:
            raise ReplayError("a position is after at least the GameStarted event")
        try:
            return Position(cls._replay_items(items, deals, deal_pending=False, stop_inside=True))
        except _EndsInsideCommand as inside:
            before = cls._replay_items(items[: inside.start], deals, deal_pending=False, stop_inside=False)
            partial = [e if isinstance(e, Event) else event_from_dict(e) for e in items[inside.start :]]
            return Position(before, partial, inside.game)

    def extend(self, events: Iterable[Event | dict[str, Any]]) -> None:
        """Apply the events that follow this game's log, validated as ``replay`` does.

        ``Game.replay(log[:k]).extend(log[k:])`` equals ``Game.replay(log)``, at the cost of
        the new events only.  Raises ReplayError if they do not follow; the game is then
        left part-way and must be thrown away.
        """
        self._replaying = True
        self._apply_log(list(events), 0)

    def _apply_log(
        self, items: list[Event | dict[str, Any]], i: int, *, deal_pending: bool = True, stop_inside: bool = False
    ) -> None:
        """Re-execute the logged commands ``items[i:]``, checking every event they produce.

        ``deal_pending``: a log that stops before the next hand's HandDealt deals it (a rebuilt
        game goes on); else the game stays awaiting that deal. ``stop_inside``: a log that
        stops inside a command's events raises ``_EndsInsideCommand`` once the events it
        holds are checked."""
        n = len(items)
        play = self.play
        while i < n:
            item = items[i]
            try:
                if (
                    type(item) is dict
                    and item.get("type") == "CardPlayed"
                    and item.get("v") == 1
                    and type(item.get("card")) is str
                    and item["card"] in _PARSE
                ):
                    # hot path: the produced CardPlayed is built from these very fields
                    out = play(item["seat"], _PARSE[item["card"]])
                    j = 1
                else:
                    e = item if isinstance(item, Event) else event_from_dict(item)
                    out = self._replay_command(i, e)
                    j = 0
            except IllegalMove as err:
                raise ReplayError(f"event {i} is illegal: {err}") from err
            k = len(out)
            inside = i + k > n
            if inside and not stop_inside:
                raise ReplayError(f"the log ends inside the events of command {i}")
            while j < k and i + j < n:
                want = items[i + j]
                got = out[j]
                if type(want) is dict:
                    if got.to_dict() != want and got != event_from_dict(want):
                        raise ReplayError(f"event {i + j} ({got.type}) differs from the engine's")
                elif got != want:
                    raise ReplayError(f"event {i + j} ({got.type}) differs from the engine's")
                j += 1
            if inside:
                raise _EndsInsideCommand(i, self)
            i += k
        self._replaying = False
        if self._awaiting_deal and deal_pending:
            self._awaiting_deal = False
            self._deal(*self._make_deal(self.hand_number))

    def _replay_command(self, i: int, e: Event) -> list[Event]:
        # one type() call for all the tests: mypy narrows e on `type(e) is X` only, not on t
        t = type(e)
        if t is CardPlayed:
            return self.play(e.seat, e.card)  # type: ignore[attr-defined]
        if t is CardsPassed:
            return self.pass_cards(e.seat, e.cards)  # type: ignore[attr-defined]
        if t is HandDealt and self._awaiting_deal:
            return self._deal_from_event(e)  # type: ignore[arg-type]
        if t is MoonChosen:
            return self.choose_moon(e.seat, e.choice)  # type: ignore[attr-defined]
        raise ReplayError(f"event {i} ({e.type}) was not expected here")

    # ------------------------------------------------------------------ properties
    @property
    def to_act(self) -> tuple[int, ...]:
        """Seats whose input is awaited now."""
        ph = self.phase
        if ph == Phase.PLAYING:
            return (self._state.turn,)  # type: ignore[union-attr]  # playing: _state is set
        if ph == Phase.PASSING:
            return tuple(s for s, p in enumerate(self._passes) if p is None)
        if ph == Phase.MOON_CHOICE:
            return (self._shooter,)  # type: ignore[return-value]  # choosing: _shooter is set
        return ()

    @property
    def hand_points(self) -> list[int]:
        """Penalty points taken so far in the current hand, per seat (no moon applied)."""
        st = self._state
        if st is None:
            return [0] * self._n
        jack, maria = self.rules.jack_of_diamonds, self.rules.black_maria
        return [mask_points(t, jack, maria) for t in st.taken]

    @property
    def hearts_broken(self) -> bool:
        return bool(self._state and self._state.broken)

    @property
    def state(self) -> PlayState | None:
        """The PlayState of the hand in play (a live object: copy() before searching)."""
        return self._state

    def _hand_mask(self, seat: int) -> int:
        if self._state is not None:
            return self._state.hands[seat]
        return self._hands[seat]

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now, ascending."""
        seat = self._check_seat(seat)
        return list(cards_of(self._hand_mask(seat)))

    def legal_plays(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now (empty when it is not its turn)."""
        if type(seat) is not int or not 0 <= seat < self._n:
            self._check_seat(seat)
        st: PlayState = self._state  # type: ignore[assignment]  # None only outside "playing", tested first
        if self.phase != Phase.PLAYING or st.turn != seat:
            return []
        return list(cards_of(st.legal_mask()))

    def legal_mask(self) -> int:
        """The legal plays of the seat to act as a mask (0 when not playing)."""
        return self._state.legal_mask() if self.phase == Phase.PLAYING else 0  # type: ignore[union-attr]  # _state is set

    # ------------------------------------------------------------------ commands
    def pass_cards(self, seat: int, cards: Iterable[Card | str]) -> list[Event]:
        """Choose the 3 cards ``seat`` passes this hand."""
        if self.phase != Phase.PASSING:
            raise IllegalMove("wrong_phase", self._phase_message("pass cards"))
        seat = self._check_seat(seat)
        if self._passes[seat] is not None:
            raise IllegalMove("already_passed", "You have already passed your cards this hand.")
        if isinstance(cards, str | Card):
            raise IllegalMove("pass_needs_three_cards", "Choose exactly three cards to pass.")
        try:
            parsed = [Card.parse(c) for c in cards]
        except ValueError as e:
            raise IllegalMove("invalid_card", f"That is not a card: {e}.") from None
        except TypeError:
            raise IllegalMove("pass_needs_three_cards", "Choose exactly three cards to pass.") from None
        mask = 0
        for c in parsed:
            mask |= 1 << c
        if len(parsed) != 3 or mask.bit_count() != 3:
            raise IllegalMove("pass_needs_three_cards", "Choose exactly three different cards to pass.")
        hand = self._hands[seat]
        if mask & ~hand:
            missing = cards_of(mask & ~hand)[0]
            raise IllegalMove("card_not_in_hand", f"You do not hold the {missing.symbol}.")
        self._passes[seat] = mask
        out: list[Event] = [CardsPassed(seat, cards_of(mask))]
        if all(p is not None for p in self._passes):
            n = self._n
            off = PASS_OFFSETS[self.pass_direction]
            hands = self._hands
            passes: list[int] = self._passes  # type: ignore[assignment]  # all passed: no None left
            received: list[tuple[int, int]] = [(0, 0)] * n
            for s in range(n):
                hands[s] &= ~passes[s]
            for s in range(n):
                t = (s + off) % n
                hands[t] |= passes[s]
                received[t] = (s, passes[s])
            self._received = tuple(received)
            out.append(PassCompleted(self.pass_direction, tuple((f, cards_of(m)) for f, m in received)))
            self._begin_play()
        self.events.extend(out)
        return out

    def play(self, seat: int, card: Card | str) -> list[Event]:
        """Play ``card`` for ``seat``."""
        st: PlayState = self._state  # type: ignore[assignment]  # None only outside "playing", refused next
        if self.phase != Phase.PLAYING:
            raise IllegalMove("wrong_phase", self._phase_message("play a card"))
        if seat != st.turn or type(seat) is not int:
            seat = self._check_seat(seat)
            raise IllegalMove(
                "not_your_turn",
                f"It is not your turn: {self.players[st.turn]} plays next.",
            )
        if type(card) is not Card:
            try:
                card = Card.parse(card)
            except ValueError:
                raise IllegalMove("invalid_card", f"That is not a card: {card!r}.") from None
        bit = 1 << card
        legal = st.legal_mask()
        if not legal & bit:
            raise self._illegal(seat, card)
        leader = st.leader
        trick = st.trick
        kitty = st.kitty
        tmask = st.trick_mask | bit
        w = st.push(card)
        ev = _CARD_PLAYED[seat][card]
        if w < 0:
            self.events.append(ev)
            return [ev]
        return self._trick_done(ev, leader, trick, tmask, kitty, w)

    def choose_moon(self, seat: int, choice: str) -> list[Event]:
        """The shooter's choice under the "shooter_chooses" moon option."""
        if self.phase != Phase.MOON_CHOICE:
            raise IllegalMove("wrong_phase", self._phase_message("choose a moon result"))
        seat = self._check_seat(seat)
        if seat != self._shooter:
            raise IllegalMove(
                "not_your_turn",
                f"Only the shooter ({self.players[self._shooter]}) chooses.",  # type: ignore[index]  # choosing: set
            )
        if choice not in MOON_CHOICES:
            raise IllegalMove(
                "invalid_choice",
                "Choose add_to_others (26 to everyone else) or subtract_from_self (26 off your own score).",
            )
        ev = MoonChosen(seat, choice)
        self.events.append(ev)
        out: list[Event] = [ev]
        self._score(self._shooter, choice, out)
        return out

    # ------------------------------------------------------------------ internals
    def _emit(self, ev: Event) -> Event:
        self.events.append(ev)
        return ev

    def _check_seat(self, seat: Any) -> int:
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalMove("invalid_seat", f"There is no seat {seat!r} at this table.")
        return seat

    def _phase_message(self, what: str) -> str:
        return {
            Phase.PASSING: f"You cannot {what} now: players are passing cards.",
            Phase.PLAYING: f"You cannot {what} now: the hand is being played.",
            Phase.MOON_CHOICE: f"You cannot {what} now: the moon shooter is choosing.",
            Phase.GAME_OVER: f"You cannot {what} now: the game is over.",
        }[self.phase]

    def _illegal(self, seat: int, card: Card) -> IllegalMove:
        st: PlayState = self._state  # type: ignore[assignment]  # called while playing: _state is set
        hand = st.hands[seat]
        bit = 1 << card
        if not hand & bit:
            return IllegalMove("card_not_in_hand", f"You do not hold the {card.symbol}.")
        if st.led:
            if hand & st.led and not bit & st.led:
                suit = SUIT_NAMES[st.trick[0] // 13]
                return IllegalMove("must_follow_suit", f"You must follow suit: play {suit}.")
            return IllegalMove(
                "no_points_on_first_trick",
                "No hearts or Q♠ on the first trick while you hold another card.",
            )
        if st.tricks_done == 0 and st.first_card >= 0:
            fc = CARDS[st.first_card]
            return IllegalMove("must_lead_two_of_clubs", f"The {fc.symbol} must lead the first trick.")
        if st.tricks_done == 0 and st.npft and bit & FIRST_TRICK_BANNED and hand & FIRST_TRICK_SAFE:
            return IllegalMove(
                "no_points_on_first_trick",
                "No hearts or Q♠ on the first trick while you hold another card.",
            )
        if bit & HEARTS:
            return IllegalMove("hearts_not_broken", "Hearts are not broken yet: lead another suit.")
        return IllegalMove("illegal_play", f"The {card.symbol} cannot be played now.")  # pragma: no cover

    def _trick_done(self, ev: CardPlayed, leader: int, trick: list[int], tmask: int, kitty: int, w: int) -> list[Event]:
        st: PlayState = self._state  # type: ignore[assignment]  # called while playing: _state is set
        rules = self.rules
        if kitty:
            kcards = cards_of(kitty)
            self._kitty_taken = kcards
            tmask |= kitty
        else:
            kcards = ()
        pts = mask_points(tmask, rules.jack_of_diamonds, rules.black_maria)
        cards = tuple(map(CARDS.__getitem__, trick))
        self._tricks.append((leader, cards, w, pts))
        tt = TrickTaken(st.tricks_done, leader, w, cards, pts, kcards)
        out: list[Event] = [ev, tt]
        events = self.events
        events.append(ev)
        events.append(tt)
        if st.tricks_done == st.hand_size:
            self._end_hand(out)
        return out

    def _end_hand(self, out: list[Event]) -> None:
        st: PlayState = self._state  # type: ignore[assignment]  # called while playing: _state is set
        shooter = moon_shooter(st.taken, self.rules)
        if shooter is not None and self.rules.moon == "shooter_chooses":
            self._shooter = shooter
            self.phase = Phase.MOON_CHOICE
            ev = MoonChoiceRequested(self.hand_number, shooter)
            self.events.append(ev)
            out.append(ev)
            return
        self._score(shooter, self.rules.moon if shooter is not None else None, out)

    def _score(self, shooter: int | None, moon: str | None, out: list[Event]) -> None:
        rules = self.rules
        st: PlayState = self._state  # type: ignore[assignment]  # called while playing: _state is set
        pts = score_hand(st.taken, rules, moon)
        totals = self.totals
        resets = []
        for s in range(self._n):
            totals[s] += pts[s]
            if rules.exact_end_score_halves and totals[s] == rules.end_score:
                totals[s] = rules.end_score // 2
                resets.append(s)
        ev = HandScored(self.hand_number, tuple(pts), tuple(totals), shooter, moon, tuple(resets))
        self.hand_scores.append(ev)
        self.events.append(ev)
        out.append(ev)
        self._shooter = None
        low = min(totals)
        if max(totals) >= rules.end_score and totals.count(low) == 1:
            self.winner = totals.index(low)
            self.phase = Phase.GAME_OVER
            end = GameEnded(tuple(totals), self.winner)
            self.events.append(end)
            out.append(end)
            return
        out.extend(self._next_hand())

    def _next_hand(self) -> list[Event]:
        self.hand_number += 1
        k = self.hand_number
        self.dealer = (k - 1) % self._n
        self.pass_direction = self.rules.pass_direction(k)
        if self._replaying:
            self._awaiting_deal = True
            return []
        return self._deal(*self._make_deal(k))

    def _make_deal(self, k: int) -> tuple[list[int], int]:
        if k <= len(self._deals):
            return self._deals[k - 1]  # explicit deals are indexed by hand number
        if self.seed is not None:
            rng: random.Random = random.Random(f"{self.seed}:{k}")
        else:
            if self._sysrand is None:
                self._sysrand = random.SystemRandom()
            rng = self._sysrand
        deck = list(cards_of(self._deck))
        rng.shuffle(deck)
        size = self.rules.hand_size
        hands = []
        for s in range(self._n):
            m = 0
            for c in deck[s * size : (s + 1) * size]:
                m |= 1 << c
            hands.append(m)
        kitty = 0
        for c in deck[self._n * size :]:
            kitty |= 1 << c
        return hands, kitty

    def _deal_from_event(self, e: HandDealt) -> list[Event]:
        if (e.hand_number, e.dealer, e.pass_direction) != (self.hand_number, self.dealer, self.pass_direction):
            raise ReplayError(
                f"HandDealt for hand {e.hand_number} does not follow the game "
                f"(expected hand {self.hand_number}, dealer {self.dealer}, "
                f"pass {self.pass_direction})"
            )
        try:
            hands, kitty = _parse_deal(self.rules, [*e.hands, e.kitty] if self.rules.kitty_size else list(e.hands))
        except ValueError as err:
            raise ReplayError(f"bad HandDealt: {err}") from None
        self._awaiting_deal = False
        return self._deal(hands, kitty)

    def _deal(self, hands: list[int], kitty: int) -> list[Event]:
        n = self._n
        self._dealt = (tuple(hands), kitty)
        self._hands = list(hands)
        self._kitty = kitty
        self._passes = [None] * n
        self._received = None
        self._state = None
        self._tricks = []
        self._kitty_taken = None
        self._shooter = None
        ev = HandDealt(
            self.hand_number,
            self.dealer,
            self.pass_direction,
            tuple(cards_of(h) for h in hands),
            cards_of(kitty),
        )
        self.events.append(ev)
        if self.pass_direction == "none":
            self._begin_play()
        else:
            self.phase = Phase.PASSING
        return [ev]

    def _begin_play(self) -> None:
        self._state = PlayState.start(self.rules, self._hands, self._kitty, self.dealer)
        self.phase = Phase.PLAYING

    def copy(self) -> Game:
        """An independent copy (events are immutable and shared; lists are copied)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.events = list(self.events)
        g.totals = list(self.totals)
        g.hand_scores = list(self.hand_scores)
        g._deals = list(self._deals)
        g._hands = list(self._hands)
        g._passes = list(self._passes)
        g._tricks = list(self._tricks)
        g._state = self._state.copy() if self._state is not None else None
        return g

    # ------------------------------------------------------------------ equality
    def state_dict(self) -> dict[str, Any]:
        """Everything that makes up the game's state (for comparing games)."""
        st = self._state
        return {
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "seed": self.seed,
            "phase": self.phase,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "pass_direction": self.pass_direction,
            "totals": list(self.totals),
            "winner": self.winner,
            "dealt": [list(self._dealt[0]), self._dealt[1]],
            "hands": [self._hand_mask(s) for s in range(self._n)],
            "passes": list(self._passes),
            "received": self._received,
            "play": st.state_tuple() if st is not None else None,
            "tricks": [(ld, [int(c) for c in cs], w, p) for ld, cs, w, p in self._tricks],
            "shooter": self._shooter,
            "hand_scores": [e.to_dict() for e in self.hand_scores],
            "events": len(self.events),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.state_dict() == other.state_dict() and self.events == other.events

    __hash__ = None  # type: ignore[assignment]  # equal games are mutable: unhashable, as Python has it

    def __repr__(self) -> str:
        return f"<Game {self.rules.players}p hand {self.hand_number} {self.phase} totals={self.totals}>"

    # ------------------------------------------------------------------ view
    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may know now (``None``: a spectator), JSON-serialisable.

        Never contains another seat's unplayed card, an unrevealed pass, the kitty
        before it is taken, or the seed. It is ``seat_view(seat)`` and ``table_view()``
        together: a server serialises the table's part once for all its viewers.
        """
        return {**self.seat_view(seat), **self.table_view()}

    SEAT_FIELDS = ("seat", "hand", "legal_plays", "passed", "passed_to", "received", "received_from")
    """The fields of ``view(seat)`` that only that seat sees (``seat_view``); the rest are the table's."""

    def seat_view(self, seat: int | None) -> dict[str, Any]:
        """The part of ``view(seat)`` that is ``seat``'s own (``SEAT_FIELDS``): its hand, its
        legal plays and its pass. For a spectator (``None``) nothing is shown."""
        if seat is None:
            return dict.fromkeys(self.SEAT_FIELDS) | {"legal_plays": []}
        seat = self._check_seat(seat)
        passed = self._passes[seat]
        rec = self._received[seat] if self._received is not None else None
        return {
            "seat": seat,
            "hand": [NAMES[c] for c in cards_of(self._hand_mask(seat))],
            "legal_plays": [NAMES[c] for c in self.legal_plays(seat)],
            "passed": [NAMES[c] for c in cards_of(passed)] if passed is not None else None,
            "passed_to": (seat + PASS_OFFSETS[self.pass_direction]) % self._n
            if self.pass_direction != "none"
            else None,
            "received": [NAMES[c] for c in cards_of(rec[1])] if rec is not None else None,
            "received_from": rec[0] if rec is not None else None,
        }

    def table_view(self) -> dict[str, Any]:
        """The part of every ``view`` that is the same for every seat and spectator: the
        players, rules, phase, trick, the hand's tricks, counts of cards in hand, scores."""
        n = self._n
        st = self._state
        rules = self.rules
        over = self.phase == Phase.GAME_OVER
        d: dict[str, Any] = {
            "players": list(self.players),
            "rules": self._rules_view(),
            "phase": self.phase,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "pass_direction": self.pass_direction,
            "to_act": list(self.to_act),
            "removed_cards": list(rules.removed_cards or ()),
            "kitty_size": rules.kitty_size,
            "passed_seats": [s for s, p in enumerate(self._passes) if p is not None],
        }
        if st is not None:
            d["trick"] = [{"seat": (st.leader + i) % n, "card": NAMES[c]} for i, c in enumerate(st.trick)]
            d["leader"] = st.leader
            d["trick_number"] = min(st.tricks_done + 1, st.hand_size)
            d["hearts_broken"] = st.broken
            d["points_taken"] = self.hand_points
            d["hand_counts"] = [h.bit_count() for h in st.hands]
        else:
            d["trick"] = []
            d["leader"] = None
            d["trick_number"] = 0
            d["hearts_broken"] = False
            d["points_taken"] = [0] * n
            d["hand_counts"] = [h.bit_count() for h in self._hands]
        d["tricks"] = self._tricks_view()
        kitty_taken = self._kitty_taken
        taken = kitty_taken is not None
        d["kitty"] = [NAMES[c] for c in kitty_taken] if kitty_taken is not None and can_see_kitty(taken, over) else None
        d["kitty_taken_by"] = self._tricks[0][2] if taken and self._tricks else None
        d["totals"] = list(self.totals)
        d["hand_scores"] = self._hand_scores_view()
        d["winner"] = self.winner
        d["moon"] = {"shooter": self._shooter, "awaiting_choice": True} if self.phase == Phase.MOON_CHOICE else None
        return d

    # The rules never change, the hand's tricks and the hands scored only grow (a new hand starts
    # a new list), and most views come after a card that changed none of them: while one is
    # unchanged, table_view returns the same object it returned before, which a server may keep
    # serialised (tournaments/live/frames.py). They are shared between views: read, never change.

    def _rules_view(self) -> dict[str, Any]:
        return self._kept("_rules_memo", self.rules, 0, Rules.to_dict)

    def _tricks_view(self) -> list[dict[str, Any]]:
        n = self._n
        return self._kept(
            "_tricks_memo",
            self._tricks,
            len(self._tricks),
            lambda tricks: [
                {
                    "leader": ld,
                    "cards": [{"seat": (ld + i) % n, "card": NAMES[c]} for i, c in enumerate(cs)],
                    "winner": w,
                    "points": p,
                }
                for ld, cs, w, p in tricks
            ],
        )

    def _hand_scores_view(self) -> list[dict[str, Any]]:
        scores = self.hand_scores
        return self._kept("_hand_scores_memo", scores, len(scores), lambda kept: [_score_dict(e) for e in kept])

    def _kept(self, name: str, source: _S, size: int, build: Callable[[_S], _V]) -> _V:
        """``build(source)``, or what it gave last time if ``source`` is the same object at the same size."""
        memo: tuple[_S, int, _V] | None = self.__dict__.get(name)
        if memo is not None and memo[0] is source and memo[1] == size:
            return memo[2]
        view = build(source)
        self.__dict__[name] = (source, size, view)
        return view


class Position:
    """A replay's step: the game after some events of its log (``Game.position``).

    ``game`` is the game at the last command boundary; ``partial`` the events of the
    command the position stops inside of (checked against what the engine produces), and
    ``after`` the game once that whole command has run. Views show the state after the
    position's last event and nothing from later events.
    """

    def __init__(self, game: Game, partial: Sequence[Event] = (), after: Game | None = None) -> None:
        self.game = game
        self.partial = tuple(partial)
        self.after = after

    @property
    def phase(self) -> Phase:
        if self.game._awaiting_deal and not self.partial:
            return Phase.DEALING
        return self.game.phase

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may know at this position (``Game.view`` plus the partial events)."""
        g = self.game
        if not self.partial:
            d = g.view(seat)
            if g._awaiting_deal:
                _as_dealing(d, g._n)
            return d
        last = self.partial[-1]
        if type(last) in (TrickTaken, HandScored):
            # the hand is over inside the command: the whole command's state, before what the
            # log has not reached yet (the score, the next deal, the end of the game)
            d = self.after.view(seat)  # type: ignore[union-attr]  # a partial command comes with its after
            before = g.view(seat)
            for key in ("hand_number", "dealer", "pass_direction", "moon"):
                d[key] = before[key]
            if type(last) is TrickTaken:
                d["totals"], d["hand_scores"] = before["totals"], before["hand_scores"]
            d["phase"], d["winner"] = Phase.PLAYING, None
        else:
            d = g.view(seat)
            for event in self.partial:
                _show_partial(d, event)
        d["to_act"], d["legal_plays"] = [], []
        return d


def _as_dealing(d: dict[str, Any], n: int) -> None:
    """A view awaiting the next HandDealt: no cards anywhere yet."""
    d.update(
        phase=Phase.DEALING,
        to_act=[],
        legal_plays=[],
        hand=[] if d["seat"] is not None else None,
        passed=None,
        passed_to=None,
        received=None,
        received_from=None,
        passed_seats=[],
        trick=[],
        leader=None,
        trick_number=0,
        hearts_broken=False,
        points_taken=[0] * n,
        hand_counts=[0] * n,
        tricks=[],
        kitty=None,
        kitty_taken_by=None,
        moon=None,
    )


def _show_partial(d: dict[str, Any], event: Event) -> None:
    """Apply to a view an event that begins a command the position stops inside of."""
    if type(event) is CardPlayed:  # the trick's last card, on the table until TrickTaken
        name = NAMES[event.card]
        seat = event.seat
        d["trick"] = [*d["trick"], {"seat": seat, "card": name}]
        if d["hand"] is not None and name in d["hand"]:
            d["hand"] = [c for c in d["hand"] if c != name]
        counts = list(d["hand_counts"])
        counts[seat] -= 1
        d["hand_counts"] = counts
    elif type(event) is CardsPassed:  # the last pass, before the cards change hands
        seat = event.seat
        d["passed_seats"] = sorted({*d["passed_seats"], seat})
        if d["seat"] == seat:
            d["passed"] = [NAMES[c] for c in event.cards]
    elif type(event) is MoonChosen:
        d["moon"] = {"shooter": event.seat, "awaiting_choice": False, "choice": event.choice}
    else:  # pragma: no cover - the engine emits no other event first in a command
        raise ReplayError(f"{event.type} cannot begin a command")


def _score_dict(e: HandScored) -> dict[str, Any]:
    d = e.to_dict()
    del d["type"], d["v"]
    return d


def _parse_deal(rules: Rules, deal: Sequence[Iterable[Card | str]]) -> tuple[list[int], int]:
    """Validate one explicit deal; returns (hand masks, kitty mask)."""
    n = rules.players
    parts = list(deal)
    want = n + (1 if rules.kitty_size else 0)
    if len(parts) == n and rules.kitty_size == 0:
        pass
    elif len(parts) != want:
        raise ValueError(f"a deal is {n} hands" + (" and the kitty" if rules.kitty_size else ""))
    masks = []
    seen = 0
    for part in parts:
        m = 0
        for c in part:
            b = 1 << Card.parse(c)
            if (m | seen) & b:
                raise ValueError(f"{Card.parse(c)} is dealt twice")
            m |= b
        seen |= m
        masks.append(m)
    hands, kitty = masks[:n], (masks[n] if len(masks) > n else 0)
    for s, h in enumerate(hands):
        if h.bit_count() != rules.hand_size:
            raise ValueError(f"seat {s} must get {rules.hand_size} cards")
    if kitty.bit_count() != rules.kitty_size:
        raise ValueError(f"the kitty must have {rules.kitty_size} cards")
    if seen & rules.removed_mask:
        raise ValueError("a removed card was dealt")
    if seen != FULL_DECK & ~rules.removed_mask:
        raise ValueError("a deal must use every card in play")
    return hands, kitty


__all__ = [
    "QS_BIT",
    "Game",
    "IllegalMove",
    "Phase",
    "Position",
    "ReplayError",
]
