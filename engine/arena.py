"""Bot against bot, duplicate-dealt: ``python -m engine.arena``.

    python -m engine.arena --seats montecarlo,rule,rule,rule --hands 2000 --players 4 \\
        [--seed S] [--rules key=value ...] [--jobs J]

Every deal is replayed N times (N players) with the bots rotated one seat each time, so
every bot plays every seat's cards and the luck of the deal cancels.  ``--hands`` counts
hands played (deals x N).  Each hand is a single hand (deal, pass in the hand's
direction, which cycles with the deal number as in a game, play every trick) driven
through the validated ``Game`` with each bot handed only ``game.view(seat)``.

Prints, per bot kind: mean points per hand with a 95% confidence interval (over deals,
which are independent), moon shots, and decision-time percentiles; and for each pair of
kinds the paired mean difference per deal with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from .bots import make
from .cards import FULL_DECK, cards_of
from .game import Game
from .rules import Rules


@dataclass
class Tally:
    """Results of some deals, mergeable (for --jobs)."""

    # per deal: kind -> (sum of points, hands played)
    deals: list[dict[str, tuple[int, int]]] = field(default_factory=list)
    moons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # plays with a real choice (two or more legal cards): where search spends its time
    choice_times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    hands: int = 0

    def merge(self, other: Tally) -> None:
        self.deals.extend(other.deals)
        for k, count in other.moons.items():
            self.moons[k] += count
        for k, times in other.times.items():
            self.times[k].extend(times)
        for k, times in other.choice_times.items():
            self.choice_times[k].extend(times)
        self.hands += other.hands


def make_deal(rules: Rules, rng: random.Random) -> list[list[str]]:
    deck = [str(c) for c in cards_of(FULL_DECK & ~rules.removed_mask)]
    rng.shuffle(deck)
    size = rules.hand_size
    n = rules.players
    deal = [sorted(deck[s * size : (s + 1) * size]) for s in range(n)]
    if rules.kitty_size:
        deal.append(deck[n * size :])
    return deal


def new_hand(rules: Rules, deal: list[list[str]], direction: str) -> Game:
    """A game whose first hand is ``deal``, passed in ``direction``.

    ``Game.new`` always starts at hand 1 (pass left); a later hand's direction is set
    on the fresh game before anyone passes ("none": the same deal with passing off).
    """
    if direction == "none":
        return Game.new(replace(rules, passing="off"), deals=[deal])
    g = Game.new(rules, deals=[deal])
    g.pass_direction = direction
    return g


def play_hand(game: Game, bots: list[Any], kinds: list[str], tally: Tally) -> list[int]:
    """Play the game's current hand to its end with ``bots`` (one per seat)."""
    times = tally.times
    clock = time.perf_counter
    while True:
        ph = game.phase
        if ph == "passing":
            for s in game.to_act:
                t0 = clock()
                cmd = bots[s].decide(game.view(s))
                times[kinds[s]].append(clock() - t0)
                game.pass_cards(s, cmd["cards"])
        elif ph == "playing":
            s = game.to_act[0]
            view = game.view(s)
            t0 = clock()
            cmd = bots[s].decide(view)
            dt = clock() - t0
            times[kinds[s]].append(dt)
            if len(view["legal_plays"]) > 1:
                tally.choice_times[kinds[s]].append(dt)
            game.play(s, cmd["card"])
        elif ph == "moon_choice":
            s = game.to_act[0]
            cmd = bots[s].decide(game.view(s))
            game.choose_moon(s, cmd["choice"])
        if game.hand_scores:
            return list(game.hand_scores[0].points)


def run_deals(
    rules: Rules, seats: list[str], deal_ids: list[int], seed: Any, params: dict[str, dict[str, Any]]
) -> Tally:
    n = rules.players
    tally = Tally()
    for d in deal_ids:
        rng = random.Random(f"arena:{seed}:{d}")
        deal = make_deal(rules, rng)
        direction = rules.pass_direction(d + 1)
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in range(n):
            kinds = [seats[(s + r) % n] for s in range(n)]
            bots = [make(k, seed=f"{seed}:{d}:{r}:{s}", **params.get(k, {})) for s, k in enumerate(kinds)]
            g = new_hand(rules, deal, direction)
            pts = play_hand(g, bots, kinds, tally)
            shooter = g.hand_scores[0].shooter
            if shooter is not None:
                tally.moons[kinds[shooter]] += 1
            for s, k in enumerate(kinds):
                per[k][0] += pts[s]
                per[k][1] += 1
            tally.hands += 1
        tally.deals.append({k: (v[0], v[1]) for k, v in per.items()})
    return tally


def _job(args: tuple[Rules, list[str], list[int], Any, dict[str, dict[str, Any]]]) -> Tally:
    return run_deals(*args)


def mean_ci(xs: list[float]) -> tuple[float, float]:
    k = len(xs)
    if k == 0:
        return math.nan, math.nan
    m = sum(xs) / k
    if k < 2:
        return m, math.inf
    var = sum((x - m) ** 2 for x in xs) / (k - 1)
    return m, 1.96 * math.sqrt(var / k)


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    i = min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))
    return s[i]


def report(tally: Tally, seats: list[str], out: TextIO | None = None) -> dict[str, Any]:
    out = out or sys.stdout
    kinds = list(dict.fromkeys(seats))
    summary: dict[str, Any] = {"hands": tally.hands, "deals": len(tally.deals), "bots": {}}
    print(f"{tally.hands} hands ({len(tally.deals)} deals x {len(seats)} rotations)", file=out)
    print(
        f"{'bot':<12} {'seats':>5} {'pts/hand':>9} {'95% CI':>17} {'moons':>6} "
        f"{'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}   (all decisions | plays with a choice)",
        file=out,
    )
    for k in kinds:
        xs = [d[k][0] / d[k][1] for d in tally.deals if k in d]
        m, h = mean_ci(xs)
        ts = [t * 1000 for t in tally.times.get(k, [])]
        p50, p95, p99 = (percentile(ts, q) for q in (50, 95, 99))
        cs = [t * 1000 for t in tally.choice_times.get(k, [])]
        c50, c95, c99 = (percentile(cs, q) for q in (50, 95, 99))
        summary["bots"][k] = {
            "mean": m,
            "ci95": h,
            "moons": tally.moons.get(k, 0),
            "p50_ms": p50,
            "p95_ms": p95,
            "p99_ms": p99,
            "choice_p50_ms": c50,
            "choice_p95_ms": c95,
            "choice_p99_ms": c99,
        }
        print(
            f"{k:<12} {seats.count(k):>5} {m:>9.3f} {f'[{m - h:.3f}, {m + h:.3f}]':>17} "
            f"{tally.moons.get(k, 0):>6} {p50:>8.2f} {p95:>8.2f} {p99:>8.2f}   "
            f"| {c50:.2f} {c95:.2f} {c99:.2f}",
            file=out,
        )
    for i, a in enumerate(kinds):
        for b in kinds[i + 1 :]:
            diffs = [d[a][0] / d[a][1] - d[b][0] / d[b][1] for d in tally.deals if a in d and b in d]
            m, h = mean_ci(diffs)
            summary.setdefault("pairs", {})[f"{a}-{b}"] = {"mean": m, "ci95": h}
            print(
                f"{a} - {b}: {m:+.3f} points per hand, 95% CI [{m - h:+.3f}, {m + h:+.3f}] (paired by deal)", file=out
            )
    return summary


def parse_rules(pairs: list[str], players: int) -> Rules:
    d: dict[str, Any] = {"players": players}
    for p in pairs:
        if "=" not in p:
            raise SystemExit(f"--rules wants key=value, got {p!r}")
        k, v = p.split("=", 1)
        try:
            d[k] = json.loads(v)
        except json.JSONDecodeError:
            d[k] = v.split(",") if k == "removed_cards" else v
    try:
        return Rules.from_dict(d)
    except (ValueError, TypeError) as e:
        raise SystemExit(f"bad rules: {e}") from None


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seats", required=True, help="bot kinds by seat, comma separated")
    ap.add_argument("--hands", type=int, default=400, help="hands to play (rounded up to whole deals)")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--seed", default="0")
    ap.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="rule options, e.g. black_maria=true moon=subtract_from_self",
    )
    ap.add_argument(
        "--bot", nargs="*", default=[], metavar="KIND.PARAM=VALUE", help="bot parameters, e.g. montecarlo.playouts=400"
    )
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--json", action="store_true", help="also print the summary as JSON")
    a = ap.parse_args(argv)
    seats = [s.strip() for s in a.seats.split(",") if s.strip()]
    players = a.players or len(seats)
    if len(seats) != players:
        raise SystemExit(f"--seats names {len(seats)} bots for {players} players")
    for s in seats:
        try:
            make(s)
        except ValueError as e:
            raise SystemExit(str(e)) from None
    params: dict[str, dict[str, Any]] = defaultdict(dict)
    for p in a.bot:
        key, _, v = p.partition("=")
        kind, _, name = key.partition(".")
        params[kind][name] = json.loads(v)
    rules = parse_rules(a.rules, players)
    n_deals = max(1, math.ceil(a.hands / players))
    ids = list(range(n_deals))
    t0 = time.perf_counter()
    tally = Tally()
    if a.jobs > 1:
        import multiprocessing as mp

        chunks = [ids[i :: a.jobs] for i in range(a.jobs)]
        with mp.Pool(a.jobs) as pool:
            for t in pool.imap_unordered(_job, [(rules, seats, c, a.seed, dict(params)) for c in chunks]):
                tally.merge(t)
    else:
        tally = run_deals(rules, seats, ids, a.seed, dict(params))
    default = Rules(players=players).to_dict()
    print(
        f"rules: {json.dumps({k: v for k, v in rules.to_dict().items() if v != default[k]})}"
        f"  seed {a.seed}  {time.perf_counter() - t0:.1f} s"
    )
    summary = report(tally, seats)
    if a.json:
        print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
