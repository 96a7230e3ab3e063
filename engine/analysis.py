"""Post-game analysis: the CPU reviews every decision of a finished game.

Two steps, both pure functions of their inputs (so a result is rebuilt exactly):

``decisions(events)`` replays an engine-event log once and yields, for every pass, play
and moon choice, a ``Decision``: its position in the log (the index of the event that
recorded it), the seat, the kind, what was taken, and that seat's view just before it
(``Game.view(seat)``, the only thing a review reads).

``review(view, taken, seed=...)`` estimates, from the view alone, the expected points
this hand of every option and compares the one taken with the best:

- play: every class of equivalent legal cards (``montecarlo.card_classes``) is played
  out with the montecarlo bot's playout policy on the same ``play_samples`` deals
  sampled by ``Knowledge.deal`` (each class also reuses the same random stream for its
  playout on a deal, so differences carry little noise).  One class: forced, never
  flagged.
- pass: candidate sets of three cards (see ``pass_candidates``) are played out whole on
  sampled deals, each other seat passing as the rule bot would with its sampled hand.
  Every candidate is screened on ``pass_screen`` deals; the best ``pass_finalists`` and
  the set taken are then compared on ``pass_samples`` fresh deals (fresh, so that the
  screening's luck does not flatter the finalists against the set taken).
- moon choice: exact (every card is known by then).  Both choices are worth the same
  26 points against the others; they differ only when a total lands on the end score
  (halving) or when one of them ends the game.  Value: the seat's change of total minus
  the mean change of the others', -100 if the choice ends the game with this seat the
  winner, +100 if it ends it with another seat the winner (the montecarlo bot's ±100).

Points are the seat's own points in the hand (lower is better), including those already
taken; ``loss`` = expected points of the option taken - those of the best option (>= 0).

The class comes from the loss: good under 1, inaccuracy from 1, mistake from 3,
blunder from 6 expected points (``THRESHOLDS``), chosen by measurement with
``python -m engine.analysis_bench --measure`` (figures in engine/bots/README.md,
"Analysis").  The estimate's own noise at the default budget (the loss it gives to the
option that a run at 4x the budget with another seed calls best) was at most 0.89 over
729 plays and 1.14 over 128 passes (p99 0.71 and 0.92): noise alone is an inaccuracy
about once in a hundred passes, and was never a mistake.  A mistake (3) is about a
trick of three hearts given away, a blunder (6) half the queen; the rule bot's plays
were mistakes or worse 1.4% of the time, the random bot's 9.7%.

Seeds: ``decision_seed(game_key, position, seat)`` hashes public data only, never a
card: the review of a seat cannot change when the other seats' hidden cards are
swapped for any others consistent with its view.  There is no deadline: the work is a
fixed number of samples, so the same inputs give the same result on any machine.

>>> from engine import Game, Rules
>>> from engine.bots import make
>>> g = Game.new(Rules(passing="off", end_score=26), seed=3)
>>> bots = [make("rule", seed=s) for s in range(4)]
>>> while g.phase == "playing" and g.hand_number == 1:
...     s = g.to_act[0]
...     _ = g.play(s, bots[s].decide(g.view(s))["card"])
>>> log = [e.to_dict() for e in g.events]
>>> d = next(d for d in decisions(log) if len(d.view["legal_plays"]) > 3)
>>> r = review(d.view, d.taken, seed=decision_seed("demo", d.position, d.seat),
...            budget=Budget(play_samples=20))
>>> sorted(r) == sorted(RESULT_KEYS)
True
>>> r["loss"] >= 0 and r["class"] in CLASSES
True
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from .bots.knowledge import Knowledge, awaits, bits, rules_of
from .bots.montecarlo import card_classes
from .bots.policy import policy_playout
from .bots.rule import choose_pass, pass_danger
from .cards import NAMES, SUIT_MASKS, Card, cards_of
from .core import PlayState, score_hand
from .events import Event
from .fast import from_view
from .game import Game, ReplayError
from .rules import MOON_CHOICES, Rules

ANALYSIS_VERSION = 1

CLASSES = ("good", "inaccuracy", "mistake", "blunder")
# loss (expected points) from which a decision is an inaccuracy, a mistake, a blunder;
# measured, see the module docstring and engine/bots/README.md
THRESHOLDS = (1.0, 3.0, 6.0)

DECISION_EVENTS = {"CardsPassed": "pass", "CardPlayed": "play", "MoonChosen": "moon_choice"}

# the keys of a review (``review``); ``analyse`` adds "position"
RESULT_KEYS = (
    "version",
    "seat",
    "kind",
    "hand_number",
    "trick_number",
    "taken",
    "taken_expected",
    "best",
    "best_expected",
    "loss",
    "loss_se",
    "class",
    "forced",
    "options",
    "samples",
    "seed",
    "budget",
)

MOON_GAME = 100.0  # a game won or lost, in points (as the montecarlo bot counts it)
PASS_POOL = 6  # the most dangerous cards, all of whose 3-card sets are candidates


@dataclass(frozen=True)
class Budget:
    """The work per decision: a fixed number of sampled deals, never a deadline.

    ``play_samples``: deals per play (every class of legal cards is played out on each).
    ``pass_screen``: deals on which every candidate pass is played out;
    ``pass_finalists``: how many of the best go on (the set taken always does);
    ``pass_samples``: fresh deals on which the finalists are compared.
    ``eps``: the playout policy's chance of a random card (the montecarlo bot's).

    The defaults keep the estimate's noise under the inaccuracy threshold (measured by
    ``python -m engine.analysis_bench --measure``) and a 10-hand game under 60 s with two
    workers here (``python -m engine.analysis_bench``).
    """

    play_samples: int = 320
    pass_screen: int = 48
    pass_finalists: int = 3
    pass_samples: int = 800
    eps: float = 0.25

    def __post_init__(self) -> None:
        for name in ("play_samples", "pass_screen", "pass_finalists", "pass_samples"):
            v = getattr(self, name)
            if type(v) is not int or v < 1:
                raise ValueError(f"{name} must be a positive int")
        if not 0 <= self.eps <= 1:
            raise ValueError("eps must be within [0, 1]")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Budget:
        """Inverse of ``to_dict``; ValueError for an unknown field."""
        try:
            return cls(**d)
        except TypeError as e:
            raise ValueError(f"bad budget: {e}") from None


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class Decision:
    """One decision of a logged game: ``position`` is the index of the event that
    recorded it; ``taken`` a card name (play), three names (pass) or a moon choice;
    ``view`` the seat's view just before it."""

    position: int
    seat: int
    kind: str
    taken: str | list[str]
    view: dict[str, Any]

    @property
    def forced(self) -> bool:
        """Only one legal card (cheap to tell without a review; a review also counts
        a single class of equivalent cards as forced)."""
        return self.kind == "play" and len(self.view["legal_plays"]) == 1

    def to_dict(self) -> dict[str, Any]:
        """The decision without the view (which holds the seat's hand)."""
        return {
            "position": self.position,
            "seat": self.seat,
            "kind": self.kind,
            "taken": self.taken,
            "hand_number": self.view["hand_number"],
            "trick_number": self.view["trick_number"],
        }


# ---------------------------------------------------------------------- the log
def _as_dict(e: Event | dict[str, Any]) -> dict[str, Any]:
    return e if isinstance(e, dict) else e.to_dict()


def decisions(
    events: Iterable[Event | dict[str, Any]],
    deals: Iterable[Sequence[Iterable[Card | str]]] | None = None,
    positions: Iterable[int] | None = None,
) -> Iterator[Decision]:
    """Every pass, play and moon choice of the log, in order (only those at
    ``positions`` if given), each with its seat's view just before it.

    The log is replayed once, up to the last decision, validated (``ReplayError`` if the
    engine would not have produced it); each view is taken on the way, so the cost is
    one replay.  The log holds engine events only.  ``deals`` are the explicit deals the
    game was created with (as for ``Game.replay``).
    """
    items = [_as_dict(e) for e in events]
    at = [i for i, e in enumerate(items) if e.get("type") in DECISION_EVENTS]
    if not at:
        Game.replay(items, deals)  # validates; nothing to yield
        return
    wanted = None if positions is None else set(positions)
    if wanted is not None:
        last = max((i for i in at if i in wanted), default=-1)
        at = [i for i in at if i <= last]  # no need to replay beyond the last one asked
        if not at:
            return
    # a prefix ending just after HandScored would be dealt a random next hand; every
    # decision follows its hand's HandDealt, so no prefix cut here ends that way
    game = None
    prev = 0
    for i in at:
        if items[i - 1].get("type") == "HandScored":
            raise ReplayError(f"event {i} follows HandScored without a HandDealt")
        if game is None:
            game = Game.replay(items[:i], deals)
        else:
            game.extend(items[prev:i])
        prev = i
        if wanted is not None and i not in wanted:
            continue
        e = items[i]
        kind = DECISION_EVENTS[e["type"]]
        taken: str | list[str]
        if kind == "pass":
            taken = [NAMES[c] for c in sorted(Card.parse(c) for c in e["cards"])]
        elif kind == "play":
            taken = NAMES[Card.parse(e["card"])]
        else:
            taken = e["choice"]
        yield Decision(i, e["seat"], kind, taken, game.view(e["seat"]))


def decision_seed(game_key: int | str, position: int, seat: int) -> int:
    """The seed of one decision's review, from public data only (never a card); a
    non-negative 63-bit int, so it fits a signed 64-bit column."""
    text = f"hearts-analysis:v{ANALYSIS_VERSION}:{game_key}:{position}:{seat}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def analyse(
    events: Iterable[Event | dict[str, Any]],
    game_key: int | str,
    *,
    deals: Iterable[Sequence[Iterable[Card | str]]] | None = None,
    budget: Budget = DEFAULT_BUDGET,
    positions: Iterable[int] | None = None,
    skip: Iterable[int] = (),
) -> Iterator[dict[str, Any]]:
    """Review the decisions of a logged game, one result dict at a time.

    Idempotent and resumable: a result depends only on the log, ``game_key``, the
    position and ``budget``, so a task can store results as they come, skip the
    positions already stored and split ``positions`` among workers.
    """
    done = set(skip)
    for d in decisions(events, deals, positions):
        if d.position in done:
            continue
        r = review(d.view, d.taken, seed=decision_seed(game_key, d.position, d.seat), budget=budget)
        yield {"position": d.position, **r}


def summarise(results: Iterable[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Per seat: decisions, choices (not forced), total and mean loss, counts per class."""
    out: list[dict[str, Any]] = [
        {"seat": s, "decisions": 0, "choices": 0, "total_loss": 0.0, "counts": dict.fromkeys(CLASSES, 0)}
        for s in range(players)
    ]
    for r in results:
        row = out[r["seat"]]
        row["decisions"] += 1
        row["choices"] += not r["forced"]
        row["total_loss"] += r["loss"]
        row["counts"][r["class"]] += 1
    for row in out:
        k = row["decisions"]
        row["total_loss"] = round(row["total_loss"], 3)
        row["mean_loss"] = round(row["total_loss"] / k, 3) if k else 0.0
        c = row["choices"]
        row["mean_loss_per_choice"] = round(row["total_loss"] / c, 3) if c else 0.0
    return out


# ---------------------------------------------------------------------- one review
def classify(loss: float) -> str:
    """The class of a loss (expected points given away)."""
    k = sum(loss >= t for t in THRESHOLDS)
    return CLASSES[k]


def review(
    view: dict[str, Any], taken: str | Sequence[str], *, seed: int, budget: Budget = DEFAULT_BUDGET
) -> dict[str, Any]:
    """Review the decision ``taken`` from ``view`` (that seat's view just before it).

    Reads the view only.  Returns a JSON-serialisable dict (keys ``RESULT_KEYS``):
    ``taken`` / ``best`` (a card name, three names or a moon choice) with their
    ``*_expected`` points, ``loss`` and its standard error ``loss_se`` (paired over the
    deals; 0 when the option taken is the best), ``class``, ``forced`` (one class of
    legal cards, or moon choices worth the same: never flagged, ``*_expected`` None for
    plays), ``options`` (best first: ``option``, ``expected``, ``samples``, and for plays
    the ``equivalent`` cards; for passes the finalists come first, then the sets dropped
    at screening, valued as the best estimate plus how much worse than the best
    finalist they did on the screening deals), ``samples`` (deals behind the
    comparison), ``seed`` and ``budget``.
    ValueError if ``taken`` is not an option of the view.
    """
    kind = awaits(view)
    rng = random.Random(seed)
    if kind == "play":
        body = _review_play(view, taken, rng, budget)
    elif kind == "pass":
        body = _review_pass(view, taken, rng, budget)
    else:
        body = _review_moon(view, taken)
    forced = body["forced"]
    loss = 0.0 if forced else max(0.0, body["taken_expected"] - body["best_expected"])
    return {
        "version": ANALYSIS_VERSION,
        "seat": view["seat"],
        "kind": kind,
        "hand_number": view["hand_number"],
        "trick_number": view["trick_number"],
        "taken": body["taken"],
        "taken_expected": _round(body["taken_expected"]),
        "best": body["best"],
        "best_expected": _round(body["best_expected"]),
        "loss": round(loss, 3),
        "loss_se": round(body["loss_se"], 3),
        "class": "good" if forced else classify(round(loss, 3)),
        "forced": forced,
        "options": body["options"],
        "samples": body["samples"],
        "seed": seed,
        "budget": budget.to_dict(),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def _mean_se(diffs: Sequence[float]) -> float:
    k = len(diffs)
    if k < 2:
        return 0.0
    m = sum(diffs) / k
    return math.sqrt(sum((x - m) ** 2 for x in diffs) / (k - 1) / k)


def _review_play(view: dict[str, Any], taken: Any, rng: random.Random, budget: Budget) -> dict[str, Any]:
    know = Knowledge.from_view(view)
    if not isinstance(taken, str) or not bits([taken]) & know.legal:
        raise ValueError(f"{taken!r} is not a legal play of this view")
    card = Card.parse(taken)
    groups = card_classes(know)
    t = next(j for j, g in enumerate(groups) if card in g)
    if len(groups) == 1:
        return {
            "taken": taken,
            "taken_expected": None,
            "best": NAMES[groups[0][0]],
            "best_expected": None,
            "loss_se": 0.0,
            "forced": True,
            "options": [_play_option(groups[0], None, 0)],
            "samples": 0,
        }
    rules = know.rules
    me = know.seat
    eps = budget.eps
    k = len(groups)
    reps = [g[0] for g in groups]
    values: list[list[int]] = [[] for _ in range(k)]
    base = None
    prng = random.Random()
    for _ in range(budget.play_samples):
        hands, kitty = know.deal(rng)
        if base is None:
            base = st = from_view(view, hands, kitty)
        else:
            st = base.copy()
            st.hands = hands
            if st.kitty or kitty:
                st.kitty = kitty if not know.tricks_done else 0
        prng.seed(rng.getrandbits(64))
        state = prng.getstate()
        for j, c in enumerate(reps):
            prng.setstate(state)
            s2 = st.copy()
            s2.push(c)
            values[j].append(policy_playout(s2, rules, prng, eps)[me])
    means = [sum(v) / len(v) for v in values]
    return _compare(
        means,
        values,
        t,
        budget.play_samples,
        [_play_option(groups[j], means[j], budget.play_samples) for j in range(k)],
        taken,
        lambda j: taken if j == t else NAMES[reps[j]],
    )


def _play_option(group: list[int], expected: float | None, samples: int) -> dict[str, Any]:
    return {
        "option": NAMES[group[0]],
        "equivalent": [NAMES[c] for c in group[1:]],
        "expected": None if expected is None else round(expected, 3),
        "samples": samples,
    }


def _compare(
    means: list[float],
    values: list[list[int]],
    t: int,
    samples: int,
    options: list[dict[str, Any]],
    taken: Any,
    name: Callable[[int], Any],
) -> dict[str, Any]:
    """Best option (ties go to the option taken, then to the first), paired SE."""
    best = min(range(len(means)), key=lambda j: (means[j], j != t, j))
    diffs = [a - b for a, b in zip(values[t], values[best], strict=True)]
    order = sorted(range(len(options)), key=lambda j: (options[j]["expected"], j))
    return {
        "taken": taken,
        "taken_expected": means[t],
        "best": name(best),
        "best_expected": means[best],
        "loss_se": _mean_se(diffs),
        "forced": False,
        "options": [options[j] for j in order],
        "samples": samples,
    }


# ---------------------------------------------------------------------- passes
def pass_candidates(hand: int, rules: Rules, taken: int) -> list[int]:
    """The 3-card sets a pass review compares (masks), the set taken first.

    Searching all C(13, 3) = 286 sets is too slow, so: the set taken; the rule bot's
    pass; every set of three among the ``PASS_POOL`` cards the rule bot finds most
    dangerous to keep (high spades without escorts, high hearts, high cards of short
    suits: C(6, 3) = 20); and for each suit of one to three cards, that suit passed
    whole, made up with the most dangerous other cards (voiding a suit).
    """
    danger = sorted(cards_of(hand), key=lambda c: (-pass_danger(c, hand, rules), c))
    out = [taken]
    seen = {taken}

    def add(m: int) -> None:
        if m.bit_count() == 3 and m not in seen:
            seen.add(m)
            out.append(m)

    add(_mask(choose_pass(hand, rules)))
    for trio in combinations(danger[:PASS_POOL], 3):
        add(_mask(trio))
    for suit in SUIT_MASKS:
        x = hand & suit
        if 0 < x.bit_count() <= 3:
            m = x
            for c in danger:
                if m.bit_count() == 3:
                    break
                m |= 1 << c
            add(m)
    return out


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _review_pass(view: dict[str, Any], taken: Any, rng: random.Random, budget: Budget) -> dict[str, Any]:
    if isinstance(taken, str):
        raise ValueError("a pass is three cards")
    know = Knowledge.from_view(view)
    rules = know.rules
    me = know.seat
    n = know.n
    hand = know.hand
    taken_mask = bits(taken)
    if taken_mask.bit_count() != 3 or taken_mask & ~hand or len(taken) != 3:
        raise ValueError(f"{list(taken)!r} is not three cards of this hand")
    off = (view["passed_to"] - me) % n
    dealer = view["dealer"]
    cands = pass_candidates(hand, rules, taken_mask)
    eps = budget.eps
    prng = random.Random()

    def run(sets: list[int], samples: int) -> list[list[int]]:
        values: list[list[int]] = [[] for _ in sets]
        for _ in range(samples):
            hands, kitty = know.deal(rng)
            passes = [0] * n
            for s in range(n):
                if s != me:
                    passes[s] = _mask(choose_pass(hands[s], rules))
            prng.seed(rng.getrandbits(64))
            state = prng.getstate()
            for j, p in enumerate(sets):
                passes[me] = p
                after = [hands[s] & ~passes[s] | passes[(s - off) % n] for s in range(n)]
                prng.setstate(state)
                st = PlayState.start(rules, after, kitty, dealer)
                values[j].append(policy_playout(st, rules, prng, eps)[me])
        return values

    screen = run(cands, budget.pass_screen)
    screen_means = [sum(v) / len(v) for v in screen]
    ranked = sorted(range(len(cands)), key=lambda j: (screen_means[j], j))
    finalists = [0, *[j for j in ranked if j != 0][: budget.pass_finalists]]
    final = run([cands[j] for j in finalists], budget.pass_samples)
    final_means = [sum(v) / len(v) for v in final]
    options = []
    for j, m in zip(finalists, final_means, strict=True):
        options.append({"option": _names(cands[j]), "expected": round(m, 3), "samples": budget.pass_samples})
    # the sets screened out: the best final estimate plus how much worse they did than
    # the best finalist on the screening deals (so none reads better than the best)
    shift = min(final_means) - min(screen_means[j] for j in finalists)
    for j in ranked:
        if j not in finalists:
            options.append(
                {
                    "option": _names(cands[j]),
                    "expected": round(screen_means[j] + shift, 3),
                    "samples": budget.pass_screen,
                }
            )
    res = _compare(
        final_means,
        final,
        0,
        budget.pass_samples,
        options[: len(finalists)],
        _names(taken_mask),
        lambda j: _names(cands[finalists[j]]),
    )
    res["options"] += options[len(finalists) :]
    return res


def _names(mask: int) -> list[str]:
    return [NAMES[c] for c in cards_of(mask)]


# ---------------------------------------------------------------------- moon
def moon_values(view: dict[str, Any]) -> dict[str, float]:
    """Each moon choice's value for the shooter (lower is better; module docstring)."""
    rules = rules_of(view)
    me = view["seat"]
    know = Knowledge.from_view(view)
    totals = list(view["totals"])
    n = len(totals)
    out = {}
    for choice in MOON_CHOICES:
        pts = score_hand(know.taken, rules, choice)
        new = [t + p for t, p in zip(totals, pts, strict=True)]
        if rules.exact_end_score_halves:
            new = [rules.end_score // 2 if x == rules.end_score else x for x in new]
        change = [a - b for a, b in zip(new, totals, strict=True)]
        value = change[me] - sum(change[s] for s in range(n) if s != me) / (n - 1)
        low = min(new)
        if max(new) >= rules.end_score and new.count(low) == 1:
            value += -MOON_GAME if new[me] == low else MOON_GAME
        out[choice] = value
    return out


def _review_moon(view: dict[str, Any], taken: Any) -> dict[str, Any]:
    if taken not in MOON_CHOICES:
        raise ValueError(f"{taken!r} is not a moon choice")
    values = moon_values(view)
    means = [values[c] for c in MOON_CHOICES]
    t = MOON_CHOICES.index(taken)
    opts = [{"option": c, "expected": round(values[c], 3), "samples": 0} for c in MOON_CHOICES]
    res = _compare(means, [[int(m)] for m in means], t, 0, opts, taken, lambda j: MOON_CHOICES[j])
    res["forced"] = means[0] == means[1]
    res["loss_se"] = 0.0
    return res


__all__ = [
    "ANALYSIS_VERSION",
    "CLASSES",
    "DEFAULT_BUDGET",
    "RESULT_KEYS",
    "THRESHOLDS",
    "Budget",
    "Decision",
    "analyse",
    "classify",
    "decision_seed",
    "decisions",
    "moon_values",
    "pass_candidates",
    "review",
    "summarise",
]
