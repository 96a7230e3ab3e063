"""Benchmark: ``python -m engine.bench [--hands N] [--games N]``.

1. Random hands through the validated path (``Game``): deal, pass (random 3 cards per
   seat), every play a uniformly random card of ``legal_plays``, scoring; whole games.
2. The same through the fast path (``PlayState.legal_mask``/``push``), no passing.
3. Replay: ``Game.replay`` of stored event dicts (``to_dict()``) of generated games,
   every command re-validated; events per second.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from .fast import playout, random_hand
from .game import Game
from .rules import Rules


def play_random_game(rules: Rules, seed: int, rng: random.Random) -> Game:
    """A whole game with uniformly random legal choices."""
    g = Game.new(rules, seed=seed)
    choice, sample = rng.choice, rng.sample
    while True:
        ph = g.phase
        if ph == "playing":
            s = g.state.turn  # type: ignore[union-attr]  # playing: the state is set
            g.play(s, choice(g.legal_plays(s)))
        elif ph == "passing":
            for s in g.to_act:
                g.pass_cards(s, sample(g.hand(s), 3))
        elif ph == "moon_choice":
            g.choose_moon(g.to_act[0], choice(("add_to_others", "subtract_from_self")))
        else:
            return g


CLOCK = time.perf_counter


def _best(fn: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` runs of ``fn()`` in seconds (like timeit: the least
    disturbed by other processes on a shared machine).  ``--cpu`` times with the
    process's CPU clock instead of the wall clock."""
    best = float("inf")
    for _ in range(rounds):
        t0 = CLOCK()
        fn()
        best = min(best, CLOCK() - t0)
    return best


def bench_game(rules: Rules, hands: int, rounds: int = 3) -> tuple[float, float, int]:
    """Whole random games through ``Game`` until ``hands`` hands: (hands/s, plays/s, hands)."""
    counts = [0, 0]

    def run() -> None:
        rng = random.Random(1)
        done = plays = seed = 0
        while done < hands:
            g = play_random_game(rules, seed, rng)
            seed += 1
            done += g.hand_number
            plays += g.hand_number * rules.hand_size * rules.players
        counts[:] = [done, plays]

    dt = _best(run, rounds)
    return counts[0] / dt, counts[1] / dt, counts[0]


def bench_fast(rules: Rules, hands: int, rounds: int = 3) -> tuple[float, float]:
    """Random playouts of freshly dealt hands on ``PlayState``: (hands/s, plays/s)."""
    per = rules.hand_size * rules.players

    def run() -> None:
        rng = random.Random(2)
        for _ in range(hands):
            playout(random_hand(rules, rng), rules, rng)

    dt = _best(run, rounds)
    return hands / dt, hands * per / dt


def bench_replay(rules: Rules, games: int, rounds: int = 3) -> tuple[float, int]:
    """``Game.replay`` of the stored event dicts of ``games`` random games: (events/s, n)."""
    rng = random.Random(3)
    logs = [[e.to_dict() for e in play_random_game(rules, 10_000 + i, rng).events] for i in range(games)]
    n = sum(len(log) for log in logs)

    def run() -> None:
        for log in logs:
            Game.replay(log)

    return n / _best(run, rounds), n


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__)
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    ap.add_argument("--cpu", action="store_true", help="time with process CPU time (steadier on a busy machine)")
    a = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if a.cpu else time.perf_counter
    rules = Rules(players=a.players)
    clock = "process CPU time" if a.cpu else "wall clock"
    print(f"best of {a.rounds} runs, one process, {clock}")
    hps, pps, done = bench_game(rules, a.hands, a.rounds)
    print(
        f"validated Game path: {hps:,.0f} hands/s, {pps:,.0f} plays/s "
        f"({done} hands, deal + pass + plays + scoring, {a.players} players)"
    )
    fh, fp = bench_fast(rules, a.hands * 3, a.rounds)
    print(f"fast PlayState path: {fh:,.0f} hands/s, {fp:,.0f} plays/s (random playouts)")
    eps, n = bench_replay(rules, a.games, a.rounds)
    print(f"replay: {eps:,.0f} events/s ({n} events of {a.games} games, Game.replay of dicts)")


if __name__ == "__main__":
    main()
