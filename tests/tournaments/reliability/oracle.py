"""The who-sees-what oracle: from the server's stored log (the truth), what a viewer holding a
given seat may know after each event, and a checker that finds, in anything a door returned,
a card or a secret the viewer may not know.

It is written from the rules of docs/reliability.md, not from ``tournaments.games.visibility``:

- after event k, the cards in another seat's hand (a pass not yet exchanged still counts as
  its passer's), and the kitty before the first trick takes it, are hidden from a viewer
  unless it holds that seat, or knows the cards because it passed them itself: it holds the
  seat that passed them this hand and held it when that pass was made (a newcomer the
  director seated after the seat passed never saw those cards, now in another hand);
- every card is shown once the game is over, unless its table is sealed (a duplicate round
  still being played elsewhere);
- the shuffle seed, the round's seed, the deal salt before everything is shown, the round's
  deals and salt before the round is over, and any planned deal not yet dealt are never shown.

Card names are matched as the API writes them ("QS", "TH") and as messages write them ("Q♠").
Each event a door returns is checked against what was hidden right after that event (the
``seq`` it carries), so an earlier hand's public plays never count against a later hand.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import engine
from engine.cards import NAMES, SUIT_SYMBOLS
from tournaments.games.events import TABLE_EVENT_TYPES

CARD = re.compile(r"(?<![A-Za-z0-9%])((?:10|[2-9TJQKA])[CDHS♣♦♥♠])(?![A-Za-z0-9])")
_SYMBOL = {s: "CDHS"[i] for i, s in enumerate(SUIT_SYMBOLS)}


def card_names(text: str) -> set[str]:
    """Every card named in ``text``, as "QS"-style names."""
    found = set()
    for name in CARD.findall(text):
        rank, suit = name[:-1], name[-1]
        found.add(("T" if rank == "10" else rank) + _SYMBOL.get(suit, suit))
    return found


@dataclass
class Truth:
    """The stored log of one game and, after each of its events, what was hidden and where."""

    players: int
    events: list[dict] = field(default_factory=list)  # {"seq", "type", "v", "payload"} as stored
    # seq -> {"held", "passed": [set per seat], "passed_at": [seq of the seat's pass this hand, per seat], "kitty"}
    hidden: dict[int, dict] = field(default_factory=dict)
    seats_at: dict[int, dict[int, int]] = field(default_factory=dict)  # seq -> {player id: seat}
    _engine_log: list[dict] = field(default_factory=list)
    _seating: dict[int, int] = field(default_factory=dict)
    _kitty: set[str] = field(default_factory=set)
    _passed_at: dict[int, int] = field(default_factory=dict)  # seat -> seq of its CardsPassed this hand

    def extend(self, rows: list[dict]) -> Truth:
        """Take in the log's next events (in order)."""
        for row in rows:
            payload = row["payload"]
            if row["type"] == "PlayersSeated":
                self._seating = {s["player_id"]: s["seat"] for s in payload["seats"]}
            elif row["type"] == "SeatReassigned":
                self._seating = {p: s for p, s in self._seating.items() if s != payload["seat"]}
                self._seating[payload["player_id"]] = payload["seat"]
            elif row["type"] == "HandDealt":
                self._kitty = set(payload.get("kitty") or [])
                self._passed_at = {}
            elif row["type"] == "CardsPassed":
                self._passed_at[payload["seat"]] = row["seq"]
            elif row["type"] == "TrickTaken" and payload.get("kitty"):
                self._kitty = set()
            if row["type"] not in TABLE_EVENT_TYPES:
                self._engine_log.append({"type": row["type"], "v": row.get("v", 1), **payload})
            position = engine.Game.position(self._engine_log, len(self._engine_log))
            views = [position.view(seat) for seat in range(self.players)]
            self.hidden[row["seq"]] = {
                "held": [set(v["hand"]) for v in views],
                "passed": [set(v["passed"] or []) for v in views],
                "passed_at": [self._passed_at.get(seat) for seat in range(self.players)],
                "kitty": set(self._kitty),
            }
            self.seats_at[row["seq"]] = dict(self._seating)
            self.events.append(row)
        return self

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else 0

    def forbidden(self, seat: int | None, seq: int, player_id: int | None) -> set[str]:
        """Cards the viewer ``player_id`` (None: anonymous) holding ``seat`` (None: no seat) may
        not be shown after event ``seq``."""
        if seq not in self.hidden:
            return set()
        hidden = self.hidden[seq]
        others = set().union(*(held for s, held in enumerate(hidden["held"]) if s != seat))
        if seat is not None and self.passed_by(player_id, seat, seq):
            others -= hidden["passed"][seat]
        return others | hidden["kitty"]

    def passed_by(self, player_id: int | None, seat: int, seq: int) -> bool:
        """Whether ``player_id`` made ``seat``'s pass of the hand in play after event ``seq``:
        the seat had passed by then, and they held it at that pass."""
        passed_at = self.hidden[seq]["passed_at"][seat]
        return passed_at is not None and self.seat_of(player_id, passed_at) == seat

    def seat_of(self, player_id: int | None, seq: int) -> int | None:
        """The seat ``player_id`` held after event ``seq``, as the log records seating."""
        if player_id is None:
            return None
        return self.seats_at.get(seq, {}).get(player_id)


@dataclass
class Secrets:
    """Strings no payload may contain: always (seeds), or until everything may be shown."""

    always: list[str]
    until_everything: list[str]
    future_hands: list[set[str]]  # planned hands not dealt yet (sets of card names)


class Leak(AssertionError):
    pass


def check(
    payload,
    *,
    who: str,
    door: str,
    truth: Truth,
    seat: int | None,
    seq: int,
    everything: bool,
    secrets: Secrets,
    player_id: int | None,
    per_event: bool = True,
) -> None:
    """Raise ``Leak`` if ``payload`` (a JSON-like value) shows ``who`` (the player ``player_id``,
    None if anonymous, holding ``seat`` now) anything hidden after event ``seq``. Event objects
    inside it are checked against what was hidden after their own seq (``per_event``), views and
    the rest against ``seq``."""
    text = json.dumps(payload, ensure_ascii=False, default=str)
    for value in secrets.always:
        if value and value in text:
            raise Leak(f"{door}: {who} was shown a seed ({value[:12]}...)")
    if everything:
        return
    for value in secrets.until_everything:
        if value and value in text:
            raise Leak(f"{door}: {who} was shown a salt or a deal ({value[:12]}...)")
    events: list[dict] = []
    remainder = _split(payload, events)
    for event in events:
        event_seq = event["seq"] if per_event and isinstance(event["seq"], int) else seq
        _cards(
            event,
            who=who,
            door=f"{door} event {event['seq']} {event['type']}",
            truth=truth,
            seat=seat,
            seq=event_seq,
            player_id=player_id,
        )
    _cards(remainder, who=who, door=door, truth=truth, seat=seat, seq=seq, player_id=player_id)
    for hand in secrets.future_hands:
        for listed in _card_lists(payload):
            if len(listed) >= len(hand) and set(listed) == hand:
                raise Leak(f"{door}: {who} was shown a planned hand before it was dealt")


def _cards(part, *, who, door, truth, seat, seq, player_id) -> None:
    shown = card_names(json.dumps(_without_rules(part), ensure_ascii=False, default=str))
    leaked = shown & truth.forbidden(seat, seq, player_id)
    if leaked:
        raise Leak(f"{door}: {who} (seat {seat}) was shown {sorted(leaked)} hidden after event {seq}")


def _split(value, events: list):
    """``value`` with every event object ({"seq", "type", "payload"}) taken out into ``events``."""
    if isinstance(value, dict):
        if "payload" in value and "type" in value and "seq" in value:
            events.append(value)
            return None
        return {key: _split(item, events) for key, item in value.items()}
    if isinstance(value, list):
        return [_split(item, events) for item in value]
    return value


def _without_rules(value):
    """The rules name removed cards, which are public and never in a hand."""
    if isinstance(value, dict):
        return {k: _without_rules(v) for k, v in value.items() if k not in ("rules", "removed_cards")}
    if isinstance(value, list):
        return [_without_rules(v) for v in value]
    return value


def _card_lists(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _card_lists(item)
    elif isinstance(value, list):
        if value and all(isinstance(v, str) and v in NAMES for v in value):
            yield value
        for item in value:
            yield from _card_lists(item)
