"""Benchmark and calibration of the post-game analysis (``engine.analysis``).

``python -m engine.analysis_bench [--hands 10] [--jobs 2] [--seed 1] [--seats ...]``
deals a 4-player game from a fixed seed, lets bots play ``--hands`` hands, then
analyses every decision with ``--jobs`` worker processes pulling chunks of decisions
(as Celery workers would) and reports the wall time, decisions per second and the
worker time spent on passes and on plays.  ``--budget key=value`` changes the budget.

``python -m engine.analysis_bench --measure [--games 2] [--noise-every 2]`` measures
what the class thresholds rest on: the losses of each bot's decisions, and the
estimate's own noise: for a decision, a run at 4x the budget with another seed names
the best option; the loss the normal run gives to that option is what noise alone
makes of a best move.  Percentiles and the share over each threshold are printed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from .analysis import (
    CLASSES,
    DEFAULT_BUDGET,
    THRESHOLDS,
    Budget,
    analyse,
    decision_seed,
    decisions,
    review,
    summarise,
)
from .bots import make
from .game import Game
from .rules import Rules

CHUNK = 12  # decisions per work item

Log = list[dict[str, Any]]  # a game's events as to_dict() dicts
Row = dict[str, Any]  # one review's result, or one measured decision


def play_game(seed: Any, seats: list[str], hands: int, rules: Rules | None = None) -> Log:
    """A game dealt from ``seed`` that the bots ``seats`` play for ``hands`` hands
    (end score out of reach, so every hand is played); its event log as dicts."""
    rules = rules or Rules(players=len(seats), end_score=10_000)
    g = Game.new(rules, seed=seed)
    params = {"montecarlo": {"time_budget_ms": None}}  # deterministic: no deadline
    bots = [make(k, seed=f"{seed}:{s}", **params.get(k, {})) for s, k in enumerate(seats)]
    while g.hand_number <= hands and g.phase != "game_over":
        ph = g.phase
        if ph == "passing":
            for s in g.to_act:
                g.pass_cards(s, bots[s].decide(g.view(s))["cards"])
        elif ph == "playing":
            s = g.to_act[0]
            g.play(s, bots[s].decide(g.view(s))["card"])
        else:
            s = g.to_act[0]
            g.choose_moon(s, bots[s].decide(g.view(s))["choice"])
    return [e.to_dict() for e in g.events]


def _work(args: tuple[Log, int | str, Budget, list[int]]) -> tuple[list[Row], dict[str, float]]:
    log, key, budget, positions = args
    out: list[Row] = []
    spent: defaultdict[str, float] = defaultdict(float)
    t = time.perf_counter()
    for r in analyse(log, key, budget=budget, positions=positions):
        now = time.perf_counter()
        spent["forced" if r["forced"] else r["kind"]] += now - t
        t = now
        out.append(r)
    return out, dict(spent)


def run_analysis(log: Log, key: int | str, budget: Budget, jobs: int) -> tuple[list[Row], dict[str, float], float]:
    """Analyse the whole log with ``jobs`` processes: (results, worker seconds per kind, wall)."""
    positions = [d.position for d in decisions(log)]
    chunks = [(log, key, budget, positions[i : i + CHUNK]) for i in range(0, len(positions), CHUNK)]
    t0 = time.perf_counter()
    results: list[Row] = []
    spent: dict[str, float] = defaultdict(float)
    if jobs > 1:
        with mp.get_context("fork").Pool(jobs) as pool:
            for rs, sp in pool.imap_unordered(_work, chunks):
                results += rs
                for k, v in sp.items():
                    spent[k] += v
    else:
        for c in chunks:
            rs, sp = _work(c)
            results += rs
            for k, v in sp.items():
                spent[k] += v
    wall = time.perf_counter() - t0
    results.sort(key=lambda r: r["position"])
    return results, dict(spent), wall


def parse_budget(pairs: list[str]) -> Budget:
    d = DEFAULT_BUDGET.to_dict()
    for p in pairs:
        k, _, v = p.partition("=")
        if k not in d:
            raise SystemExit(f"unknown budget field {k!r}; fields: {', '.join(d)}")
        d[k] = json.loads(v)
    return Budget.from_dict(d)


def bench(a: argparse.Namespace, budget: Budget) -> dict[str, Any]:
    seats = a.seats.split(",")
    t0 = time.perf_counter()
    log = play_game(a.seed, seats, a.hands)
    print(
        f"game: {a.hands} hands, seats {','.join(seats)}, seed {a.seed}, {len(log)} events "
        f"(played in {time.perf_counter() - t0:.1f} s)"
    )
    print(f"budget: {json.dumps(budget.to_dict())}; {a.jobs} worker process(es); load average {os.getloadavg()[0]:.2f}")
    results, spent, wall = run_analysis(log, f"bench:{a.seed}", budget, a.jobs)
    kinds = Counter("forced" if r["forced"] else r["kind"] for r in results)
    n = len(results)
    print(f"analysed {n} decisions in {wall:.1f} s wall: {n / wall:.1f} decisions/s")
    for k in ("pass", "play", "forced"):
        if kinds[k]:
            print(
                f"  {k:<7} {kinds[k]:>4} decisions, {spent.get(k, 0):6.1f} s of worker time, "
                f"{spent.get(k, 0) / kinds[k] * 1000:7.1f} ms each"
            )
    counts = Counter(r["class"] for r in results)
    print("classes: " + ", ".join(f"{c} {counts[c]}" for c in CLASSES))
    for row, kind in zip(summarise(results, len(seats)), seats, strict=True):
        print(
            f"  seat {row['seat']} ({kind}): mean loss {row['mean_loss']:.3f} per decision, "
            f"{row['mean_loss_per_choice']:.3f} per choice; {row['counts']}"
        )
    return {"wall_s": wall, "decisions": n, "per_s": n / wall, "spent": spent, "kinds": kinds}


# ---------------------------------------------------------------------- calibration
def _measure(args: tuple[Log, str, Budget, list[int], list[str], int, list[str]]) -> list[Row]:
    log, key, budget, positions, seats, noise_every, kinds = args
    ref_budget = Budget(
        play_samples=4 * budget.play_samples,
        pass_screen=2 * budget.pass_screen,
        pass_finalists=budget.pass_finalists + 2,
        pass_samples=4 * budget.pass_samples,
        eps=budget.eps,
    )
    out = []
    for k, d in enumerate(decisions(log, positions=positions)):
        if d.kind not in kinds:
            continue
        seed = decision_seed(key, d.position, d.seat)
        r = review(d.view, d.taken, seed=seed, budget=budget)
        row = {"bot": seats[d.seat], "kind": d.kind, "forced": r["forced"], "loss": r["loss"]}
        if not r["forced"] and (d.kind != "play" or k % noise_every == 0):
            ref = review(d.view, d.taken, seed=seed ^ 0x5EED, budget=ref_budget)
            best = ref["best"]
            again = r if best == r["taken"] else review(d.view, best, seed=seed, budget=budget)
            row["noise"] = again["loss"]
            other = review(d.view, d.taken, seed=seed ^ 0xBEEF, budget=budget)
            row["seed_diff"] = abs(other["loss"] - r["loss"])
        out.append(row)
    return out


def _pct(xs: list[float], qs: Iterable[float] = (50, 75, 90, 95, 99)) -> str:
    s = sorted(xs)
    if not s:
        return "-"
    return " ".join(f"p{q} {s[min(len(s) - 1, int(q / 100 * len(s)))]:.2f}" for q in qs)


def _over(xs: list[float]) -> str:
    k = len(xs) or 1
    return " ".join(f">={t:g}: {sum(x >= t for x in xs) / k:6.1%}" for t in THRESHOLDS)


def measure(a: argparse.Namespace, budget: Budget) -> None:
    seat_sets = [s.split(",") for s in a.measure_seats]
    work = []
    for g in range(a.games):
        seats = seat_sets[g % len(seat_sets)]
        log = play_game(f"measure:{a.seed}:{g}", seats, a.hands)
        ps = [d.position for d in decisions(log)]
        for i in range(0, len(ps), CHUNK):
            work.append((log, f"measure:{g}", budget, ps[i : i + CHUNK], seats, a.noise_every, a.kinds.split(",")))
    t0 = time.perf_counter()
    rows: list[Row] = []
    with mp.get_context("fork").Pool(a.jobs) as pool:
        for rs in pool.imap_unordered(_measure, work):
            rows += rs
    print(
        f"budget {json.dumps(budget.to_dict())}; {a.games} games x {a.hands} hands; "
        f"{len(rows)} decisions; {time.perf_counter() - t0:.0f} s"
    )
    print(f"thresholds (inaccuracy, mistake, blunder) = {THRESHOLDS}")
    print("loss of the decisions taken (forced plays left out):")
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if not r["forced"]:
            groups[(r["bot"], r["kind"])].append(r["loss"])
    for (bot, kind), xs in sorted(groups.items()):
        mean = sum(xs) / len(xs)
        print(f"  {bot:<10} {kind:<5} n={len(xs):<5} mean {mean:5.2f}  {_pct(xs)}  | {_over(xs)}")
    print("noise: loss given to the option a 4x-budget run (other seed) calls best:")
    for kind in ("play", "pass"):
        xs = [r["noise"] for r in rows if "noise" in r and r["kind"] == kind]
        ds = [r["seed_diff"] for r in rows if "seed_diff" in r and r["kind"] == kind]
        if xs:
            print(f"  {kind:<5} n={len(xs):<5} {_pct(xs, (50, 90, 95, 99, 99.9))}  | {_over(xs)}  max {max(xs):.2f}")
            print(f"        |loss(seed A) - loss(seed B)| of the option taken: {_pct(ds)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m engine.analysis_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--seats", default="rule,montecarlo,random,rule")
    ap.add_argument("--budget", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--measure", action="store_true", help="calibrate the thresholds instead")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--measure-seats", nargs="*", default=["rule,random,rule,random", "montecarlo,rule,random,rule"])
    ap.add_argument(
        "--noise-every",
        type=int,
        default=2,
        help="measure the noise on every k-th play (and every pass; 6 reviews each)",
    )
    ap.add_argument("--kinds", default="pass,play,moon_choice", help="decision kinds to measure")
    a = ap.parse_args(argv)
    budget = parse_budget(a.budget)
    if a.measure:
        measure(a, budget)
    else:
        bench(a, budget)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
