"""The live-pool scenario of ``python -m ratings.bench --scenario pool``.

Unlike the random-seat scenario (``ratings.bench.simulate``), a live site's tables are formed by
the ranked queue from the ratings themselves, so the games depend on the model being measured:
each model gets its own run of the same population, arrivals and luck.

- **The queue** (``ratings.services.matchmaking``): players join one at a time (a Poisson stream,
  ``QueueSpec.joins_per_second``, of active players not already waiting), each for a table of a size
  drawn from ``table_sizes``; a game is rated as soon as it is seated. Matching runs on every join
  (the joiner's queue: the others changed only by the clock) and every ``match_every`` seconds
  (all of them), expires entries older than the timeout, and seats the longest-waiting player who
  can be seated with the closest ratings that fit every member's window (the service's
  ``_find_table``, ported); windows and the timeout are the service's defaults
  (``ratings.conf.DEFAULTS``). A queue window is in the queue's rating points (Elo's 400-point
  logistic scale, which ``glicko-elo`` and ``elo`` use); for a model on another scale it is
  converted by how many points of that model's rating make one standard deviation of skill
  (:func:`points_per_skill_sd`).
- **Drifting skill**: every rated game moves each of its players' true skill by N(0, ``drift``).
- **Newcomers**: a share of the players (``newcomers``) joins when half the rated games are played.
- **Held out**: after every ``holdout_every`` rated games, one table of 3-5 active players drawn at
  random (not by the queue, so every model is scored on the same tables, from a stream of its own)
  is predicted from the current ratings and never rated.

Per model: Kendall's tau against the true skills at the end (conservative rating and mu, every
player who joined), the held-out log-loss (pairwise, a tie scoring 0.5), rated games until tau
first reaches 0.85 (checked every ``eval_every`` games against the true skills then), the
newcomers' mean percentile error by mu
after their 5th, 10th, 20th and 40th game (the gap, in percentage points of the active players,
between where their rating and where their true skill stand at that moment), table updates per
second, and how close the queue's tables were (the mean within-table spread of true skill).

Anchors (bench only, never used to rate): TrueSkill (the ``trueskill`` package; with beta, tau and
the draw rate matched to the simulation it is the Bayesian model the simulation draws from) and
openskill's Plackett-Luce, both on TrueSkill's scale with the same matched beta and tau
(:func:`anchor`).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ratings.bench_measures import TAU_TARGET, game_total, kendall_tau
from ratings.conf import DEFAULTS as RATING_SETTINGS
from ratings.rating import RatingModel, Skill, _skill, finishing_ranks, make_model, pair_score

NEWCOMER_CHECKPOINTS = (5, 10, 20, 40)
"""Games after which a newcomer's percentile error is measured."""

QUEUE_SCALE = 400.0
"""The queue's windows are in points of a logistic Elo scale of 400 (``glicko-elo``, ``elo``)."""

TRUESKILL_MU, TRUESKILL_SIGMA = 25.0, 25.0 / 3.0
"""The anchors' scale: one standard deviation of true skill is one initial sigma (25/3)."""


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def pairwise_win(skill_gap: float, luck: float) -> float:
    """The simulation's chance that a player ``skill_gap`` SDs better scores the lower total."""
    return _phi(skill_gap / (luck * math.sqrt(2.0)))


def points_per_skill_sd(model: RatingModel, luck: float) -> float:
    """How far apart two well-known players' ratings must be for the model to give the stronger the
    chance the simulation gives a player one skill SD better: the model's own scale, by bisection
    on ``win_probability`` at a sigma of a millionth of the initial one."""
    start = model.initial()
    sure = start.sigma * 1e-6
    target = pairwise_win(1.0, luck)
    low, high = 0.0, start.sigma
    while model.win_probability(Skill(start.mu + high, sure), Skill(start.mu, sure)) < target:
        high *= 2.0
    for _ in range(60):
        middle = (low + high) / 2.0
        if model.win_probability(Skill(start.mu + middle, sure), Skill(start.mu, sure)) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def queue_points_per_skill_sd(luck: float) -> float:
    """:func:`points_per_skill_sd` of the queue's scale, a logistic Elo scale of ``QUEUE_SCALE``."""
    p = pairwise_win(1.0, luck)
    return QUEUE_SCALE * math.log10(p / (1.0 - p))


def tie_rate(luck: float) -> float:
    """How often two equal players' totals tie: ``round`` of two totals whose difference is normal
    with SD 10 x luck x sqrt 2 (``game_total``) is equal with about the density at 0."""
    return 1.0 / (10.0 * luck * math.sqrt(2.0) * math.sqrt(2.0 * math.pi))


class TrueSkillAnchor:
    """TrueSkill (Herbrich, Minka, Graepel 2006) via the ``trueskill`` package: a bench anchor.

    Each player's table performance is their skill plus N(0, beta^2), skill drifts by N(0, tau^2)
    per game, draws have ``draw_probability`` between equals: with beta, tau and that probability
    matched to the simulation, this is the model the simulation draws from, solved by expectation
    propagation over the whole finishing order. A tie is not half a win here (draws have their own
    margin), one reason it is never used to rate.
    """

    name = "trueskill"

    def __init__(
        self,
        mu: float = 25.0,
        sigma: float = 25.0 / 3.0,
        beta: float = 25.0 / 6.0,
        tau: float = 25.0 / 300.0,
        draw_probability: float = 0.10,
    ) -> None:
        import trueskill  # the dev extra: the bench's anchor only

        self.mu, self.sigma, self.beta, self.tau = float(mu), float(sigma), float(beta), float(tau)
        self.draw_probability = float(draw_probability)
        self._env = trueskill.TrueSkill(
            mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau, draw_probability=self.draw_probability
        )

    @property
    def params(self) -> dict[str, float]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "beta": self.beta,
            "tau": self.tau,
            "draw_probability": self.draw_probability,
        }

    def initial(self) -> Skill:
        return _skill(self.mu, self.sigma)

    def rate(self, table: Sequence[Skill], totals: Sequence[int]) -> list[Skill]:
        create = self._env.create_rating
        groups = [(create(mu=s.mu, sigma=s.sigma),) for s in table]
        rated = self._env.rate(groups, ranks=finishing_ranks(totals))
        return [_skill(group[0].mu, group[0].sigma) for group in rated]

    def win_probability(self, a: Skill, b: Skill) -> float:
        spread = math.sqrt(2.0 * self.beta * self.beta + a.sigma * a.sigma + b.sigma * b.sigma)
        return _phi((a.mu - b.mu) / spread)

    def decay(self, skill: Skill, days_inactive: float) -> Skill:
        return skill  # the bench has no calendar


def anchor(name: str, *, luck: float, drift: float) -> RatingModel:
    """An anchor with beta, tau (and TrueSkill's draw rate) matched to the simulation: one skill SD
    is the initial sigma 25/3, so beta = luck x 25/3 and tau = drift x 25/3."""
    beta, tau = luck * TRUESKILL_SIGMA, drift * TRUESKILL_SIGMA
    if name == "trueskill":
        return TrueSkillAnchor(
            mu=TRUESKILL_MU, sigma=TRUESKILL_SIGMA, beta=beta, tau=tau, draw_probability=tie_rate(luck)
        )
    if name == "openskill-pl-matched":
        return make_model("openskill-pl", mu=TRUESKILL_MU, sigma=TRUESKILL_SIGMA, beta=beta, tau=tau)
    raise ValueError(f"unknown anchor {name!r}; one of {ANCHORS}")


ANCHORS = ("trueskill", "openskill-pl-matched")


@dataclass(frozen=True, slots=True)
class QueueSpec:
    """The ranked queue: traffic, and the service's windows and timings (its defaults)."""

    joins_per_second: float = 2.0
    base_window: float = RATING_SETTINGS["RATINGS_MATCH_BASE_WINDOW"]
    window_per_second: float = RATING_SETTINGS["RATINGS_MATCH_WINDOW_PER_SECOND"]
    max_window: float = RATING_SETTINGS["RATINGS_MATCH_MAX_WINDOW"]
    timeout: float = RATING_SETTINGS["RATINGS_QUEUE_TIMEOUT_SECONDS"]
    match_every: float = 5.0  # RATINGS_MATCH_EVERY's default (hearts_league/settings.py)


@dataclass(frozen=True, slots=True)
class PoolSpec:
    players: int = 200
    games: int = 20_000
    table_sizes: tuple[int, ...] = (3, 4, 5)
    luck: float = 2.5
    drift: float = 0.02
    newcomers: float = 0.1
    holdout_every: int = 10
    eval_every: int = 250
    queue: QueueSpec = field(default_factory=QueueSpec)


@dataclass(slots=True)
class PoolResult:
    name: str
    params: dict
    seed: int
    tau_conservative: float
    tau_mean: float
    log_loss: float
    log_loss_late: float  # the held-out tables of the second half only (the pool established, newcomers in)
    to_target_conservative: int | None
    to_target_mean: int | None
    newcomer_error: dict[int, float]  # games played -> mean percentile error (points), by mu
    updates_per_second: float
    rated: int
    table_spread: float  # mean within-table SD of true skill
    mean_wait: float  # seconds from joining to being seated
    expired: int
    ratings: list[Skill] = field(repr=False, default_factory=list)  # at the end
    skills: list[float] = field(repr=False, default_factory=list)  # true skills at the end


@dataclass(slots=True)
class _Entry:
    player: int
    mu: float
    joined_at: float
    order: int


def _window(spec: QueueSpec, waited: float) -> float:
    return min(spec.max_window, spec.base_window + spec.window_per_second * max(0.0, waited))


def find_table(waiting: list[_Entry], size: int, windows: dict[int, float]) -> list[_Entry] | None:
    """The service's ``_find_table``: the longest-waiting player who can be seated, with the closest
    ratings that fit every member's window. ``waiting`` is oldest first; ``windows`` by ``order``.

    Same tables as the service's, sooner: a candidate farther from the anchor than the anchor's
    window can never join its table, so only those within it are sorted, and an anchor with too few
    of them is passed over at once."""
    by_mu = sorted(waiting, key=lambda e: e.mu)
    mus = [e.mu for e in by_mu]
    for anchor_entry in waiting:
        mu, reach = anchor_entry.mu, windows[anchor_entry.order]
        low, high = bisect.bisect_left(mus, mu - 2 * reach), bisect.bisect_right(mus, mu + 2 * reach)
        near = [e for e in by_mu[low:high] if e is not anchor_entry and abs(e.mu - mu) <= reach]
        if len(near) < size - 1:
            continue
        table = [anchor_entry]
        for candidate in sorted(near, key=lambda e: (abs(e.mu - mu), e.joined_at, e.order)):
            own = windows[candidate.order]
            if all(abs(candidate.mu - m.mu) <= min(own, windows[m.order]) for m in table):
                table.append(candidate)
                if len(table) == size:
                    return table
    return None


def _percentile(values: Sequence[float], mine: float) -> float:
    """Share of ``values`` (sorted, including ``mine`` once) below ``mine``, ties counting half."""
    below = bisect.bisect_left(values, mine)
    equal = bisect.bisect_right(values, mine) - below - 1
    return (below + 0.5 * equal) / max(1, len(values) - 1)


def run_pool(model: RatingModel, spec: PoolSpec, seed: int) -> PoolResult:
    """One model through one live pool (see the module docstring)."""
    queue = spec.queue
    skill_rng = random.Random(f"{seed}:skill")
    skills = [skill_rng.gauss(0.0, 1.0) for _ in range(spec.players)]
    newcomer_count = round(spec.players * spec.newcomers)
    regulars = spec.players - newcomer_count
    newcomers = range(regulars, spec.players)
    luck_rng = [random.Random(f"{seed}:luck:{p}") for p in range(spec.players)]
    drift_rng = [random.Random(f"{seed}:drift:{p}") for p in range(spec.players)]
    arrivals = random.Random(f"{seed}:queue")
    probes = random.Random(f"{seed}:held-out")

    unit = points_per_skill_sd(model, spec.luck) / queue_points_per_skill_sd(spec.luck)
    queue_windows = QueueSpec(
        queue.joins_per_second,
        queue.base_window * unit,
        queue.window_per_second * unit,
        queue.max_window * unit,
        queue.timeout,
        queue.match_every,
    )

    ratings = [model.initial()] * spec.players
    games_played = [0] * spec.players
    idle = list(range(regulars))  # active players not waiting
    active = regulars
    waiting: dict[int, list[_Entry]] = {size: [] for size in spec.table_sizes}
    rate, win_probability, clock = model.rate, model.win_probability, time.perf_counter
    elapsed = loss = 0.0
    pairs = rated = tables = expired = late_pairs = 0
    late_loss = 0.0
    spread_sum = wait_sum = 0.0
    seated = 0
    to_cons = to_mean = None
    errors: dict[int, list[float]] = {k: [] for k in NEWCOMER_CHECKPOINTS}
    orders = itertools.count()
    now = 0.0
    next_tick = queue.match_every
    next_join = arrivals.expovariate(queue.joins_per_second)

    def newcomer_checkpoint(p: int) -> None:
        joined = range(active)
        mus = sorted(ratings[q].mu for q in joined)
        truth = sorted(skills[q] for q in joined)
        error = abs(_percentile(mus, ratings[p].mu) - _percentile(truth, skills[p]))
        errors[games_played[p]].append(100.0 * error)

    def probe() -> None:
        """A held-out table of random active players: predicted from the ratings, never rated."""
        nonlocal loss, pairs, late_loss, late_pairs
        seats = probes.sample(range(active), probes.choice(spec.table_sizes))
        totals = [game_total(skills[p] + probes.gauss(0.0, spec.luck)) for p in seats]
        for i, j in itertools.combinations(range(len(seats)), 2):
            p = min(max(win_probability(ratings[seats[i]], ratings[seats[j]]), 1e-12), 1 - 1e-12)
            s = pair_score(totals[i], totals[j])
            pair_loss = -(s * math.log(p) + (1.0 - s) * math.log(1.0 - p))
            loss += pair_loss
            pairs += 1
            if rated > spec.games // 2:
                late_loss += pair_loss
                late_pairs += 1

    def play(table: list[_Entry]) -> None:
        nonlocal elapsed, rated, tables, spread_sum, wait_sum, seated, to_cons, to_mean, active
        seats = [e.player for e in table]
        totals = [game_total(skills[p] + luck_rng[p].gauss(0.0, spec.luck)) for p in seats]
        before = [ratings[p] for p in seats]
        tables += 1
        table_skills = [skills[p] for p in seats]
        centre = sum(table_skills) / len(seats)
        spread_sum += math.sqrt(sum((x - centre) ** 2 for x in table_skills) / len(seats))
        wait_sum += sum(now - e.joined_at for e in table)
        seated += len(table)
        idle.extend(seats)
        start = clock()
        after = rate(before, totals)
        for p, skill in zip(seats, after, strict=True):
            ratings[p] = skill
        elapsed += clock() - start
        rated += 1
        for p in seats:
            games_played[p] += 1
            if spec.drift:
                skills[p] += drift_rng[p].gauss(0.0, spec.drift)
        for p in seats:
            if p >= regulars and games_played[p] in errors:
                newcomer_checkpoint(p)
        if rated % spec.holdout_every == 0:
            probe()
        if rated % spec.eval_every == 0 and (to_cons is None or to_mean is None):
            true = skills[:active]
            if to_cons is None and kendall_tau([r.conservative for r in ratings[:active]], true) >= TAU_TARGET:
                to_cons = rated
            if to_mean is None and kendall_tau([r.mu for r in ratings[:active]], true) >= TAU_TARGET:
                to_mean = rated
        if rated == spec.games // 2 and active < spec.players:
            idle.extend(newcomers)
            active = spec.players

    def match(sizes: Sequence[int]) -> None:
        nonlocal expired
        for size in sizes:
            entries = waiting[size]
            fresh = [e for e in entries if now - e.joined_at <= queue.timeout]
            if len(fresh) < len(entries):
                expired += len(entries) - len(fresh)
                idle.extend(e.player for e in entries if now - e.joined_at > queue.timeout)
                entries[:] = fresh
            while len(entries) >= size and rated < spec.games:
                windows = {e.order: _window(queue_windows, now - e.joined_at) for e in entries}
                table = find_table(entries, size, windows)
                if table is None:
                    break
                entries[:] = [e for e in entries if e not in table]
                play(table)

    while rated < spec.games:
        if next_tick <= next_join:
            now, next_tick = next_tick, next_tick + queue.match_every
            match(spec.table_sizes)
            continue
        now = next_join
        next_join = now + arrivals.expovariate(queue.joins_per_second)
        if not idle:
            continue
        slot = arrivals.randrange(len(idle))
        idle[slot], idle[-1] = idle[-1], idle[slot]
        player = idle.pop()
        size = arrivals.choice(spec.table_sizes)
        waiting[size].append(_Entry(player, ratings[player].mu, now, next(orders)))
        match([size])  # the other queues changed only by the clock: the next periodic run sees them

    true = skills
    return PoolResult(
        name=model.name,
        params=model.params,
        seed=seed,
        tau_conservative=kendall_tau([r.conservative for r in ratings], true),
        tau_mean=kendall_tau([r.mu for r in ratings], true),
        log_loss=loss / max(pairs, 1),
        log_loss_late=late_loss / max(late_pairs, 1),
        to_target_conservative=to_cons,
        to_target_mean=to_mean,
        newcomer_error={k: statistics.fmean(v) if v else math.nan for k, v in errors.items()},
        updates_per_second=rated / elapsed if elapsed else math.inf,
        rated=rated,
        table_spread=spread_sum / max(tables, 1),
        mean_wait=wait_sum / max(seated, 1),
        expired=expired,
        ratings=ratings,
        skills=skills,
    )


# --- the report ---------------------------------------------------------------------------------


def parse_spec(spec: str) -> tuple[str, dict[str, float]]:
    """``"glicko-elo:centre_weight=0"`` -> ``("glicko-elo", {"centre_weight": 0.0})``."""
    name, *pairs = spec.strip().split(":")
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"{spec!r}: parameters are key=value, joined by ':'")
        params[key.strip()] = float(value)
    return name.strip(), params


def build(spec: str, *, luck: float, drift: float) -> RatingModel:
    """A model from a spec: an anchor (matched to ``luck`` and ``drift``) or a rating model."""
    name, params = parse_spec(spec)
    if name in ANCHORS:
        if params:
            raise ValueError(f"{spec!r}: an anchor's parameters are matched to the simulation")
        return anchor(name, luck=luck, drift=drift)
    return make_model(name, **params)


def _mean_sd(values: Sequence[float], digits: int) -> str:
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return "-"
    mean = statistics.fmean(values)
    if len(values) == 1:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f}±{statistics.stdev(values):.{digits}f}"


def _to_target(results: Sequence[PoolResult]) -> str:
    reached = [r.to_target_conservative for r in results if r.to_target_conservative is not None]
    never = len(results) - len(reached)
    if not reached:
        return "never"
    shown = _mean_sd(reached, 0)
    return shown + (f" ({never} never)" if never else "")


def summary(results: dict[str, list[PoolResult]], out) -> None:
    """Mean ± sd over the seeds of every figure, one line a model."""
    head = (
        f"{'model':<34} {'tau cons':>13} {'tau mean':>13} {'logloss':>15} {'2nd half':>15} {'to .85 cons':>16} "
        + " ".join(f"{'new@' + str(k):>10}" for k in NEWCOMER_CHECKPOINTS)
        + f" {'upd/s':>7} {'spread':>6} {'wait s':>6}"
    )
    print(head, file=out)
    for spec, runs in results.items():
        print(
            f"{spec:<34} {_mean_sd([r.tau_conservative for r in runs], 4):>13} "
            f"{_mean_sd([r.tau_mean for r in runs], 4):>13} {_mean_sd([r.log_loss for r in runs], 5):>15} "
            f"{_mean_sd([r.log_loss_late for r in runs], 5):>15} "
            f"{_to_target(runs):>16} "
            + " ".join(f"{_mean_sd([r.newcomer_error[k] for r in runs], 1):>10}" for k in NEWCOMER_CHECKPOINTS)
            + f" {statistics.median(r.updates_per_second for r in runs):7.0f}"
            f" {statistics.fmean(r.table_spread for r in runs):6.3f}"
            f" {statistics.fmean(r.mean_wait for r in runs):6.1f}",
            file=out,
        )


def _paired(mine: Sequence[float], theirs: Sequence[float], digits: int) -> str:
    return _mean_sd([a - b for a, b in zip(mine, theirs, strict=True)], digits)


def verdict(results: dict[str, list[PoolResult]], default: str, out) -> None:
    """The issue's targets for ``default``: tau and log-loss at least the best anchor's, newcomers'
    error after 10 games no worse than TrueSkill's; per-seed differences, mean ± sd."""
    anchors = [spec for spec in results if spec in ANCHORS]
    if default not in results or not anchors:
        return
    mine = results[default]

    def mean(spec: str, figure) -> float:
        return statistics.fmean(figure(r) for r in results[spec])

    best_tau = max(anchors, key=lambda spec: mean(spec, lambda r: r.tau_conservative))
    best_loss = min(anchors, key=lambda spec: mean(spec, lambda r: r.log_loss))
    print(f"\n{default} against the anchors (per-seed difference, mean ± sd over {len(mine)} seeds):", file=out)
    tau_gap = [a.tau_conservative - b.tau_conservative for a, b in zip(mine, results[best_tau], strict=True)]
    print(
        f"  tau (mu - 3 sigma) - {best_tau}'s: {_mean_sd(tau_gap, 4)}; "
        f"at least as high on {sum(g >= 0 for g in tau_gap)} of {len(tau_gap)} seeds",
        file=out,
    )
    loss_gap = [a.log_loss - b.log_loss for a, b in zip(mine, results[best_loss], strict=True)]
    print(
        f"  log-loss - {best_loss}'s: {_mean_sd(loss_gap, 5)}; "
        f"at least as low on {sum(g <= 0 for g in loss_gap)} of {len(loss_gap)} seeds",
        file=out,
    )
    late_gap = [a.log_loss_late - b.log_loss_late for a, b in zip(mine, results[best_loss], strict=True)]
    print(
        f"  same over the second half only: {_mean_sd(late_gap, 5)}; "
        f"at least as low on {sum(g <= 0 for g in late_gap)} of {len(late_gap)} seeds",
        file=out,
    )
    if "trueskill" in results:
        newcomer_gap = [
            a.newcomer_error[10] - b.newcomer_error[10] for a, b in zip(mine, results["trueskill"], strict=True)
        ]
        print(
            f"  newcomers' percentile error after 10 games - trueskill's: {_mean_sd(newcomer_gap, 2)} points; "
            f"no worse on {sum(g <= 0 for g in newcomer_gap)} of {len(newcomer_gap)} seeds",
            file=out,
        )


def main(args, *, sizes: list[int], seeds: list[int], drift: float, specs: list[str], out=None) -> int:
    """``python -m ratings.bench --scenario pool``: every model on every seed, then the summary."""
    import json
    import os

    out = out or sys.stdout
    spec = PoolSpec(
        players=args.players,
        games=args.games,
        table_sizes=tuple(sizes),
        luck=args.luck,
        drift=drift,
        newcomers=args.newcomers,
        holdout_every=args.holdout_every,
        eval_every=args.eval_every,
        queue=QueueSpec(joins_per_second=args.joins_per_second),
    )
    print(
        f"pool: players={spec.players} games={spec.games} seeds={seeds} tables={list(spec.table_sizes)} "
        f"luck={spec.luck} drift={spec.drift} newcomers={spec.newcomers} joins/s={spec.queue.joins_per_second} "
        f"(load average {', '.join(f'{x:.2f}' for x in os.getloadavg())})",
        file=out,
    )
    if args.tune:
        tune_pool(spec, seeds[0] + 100, out)
    results: dict[str, list[PoolResult]] = {s: [] for s in specs}
    for seed in seeds:
        for model_spec in specs:
            result = run_pool(build(model_spec, luck=spec.luck, drift=spec.drift), spec, seed)
            results[model_spec].append(result)
            print(
                f"  seed {seed} {model_spec:<34} tau {result.tau_conservative:.4f} logloss {result.log_loss:.5f} "
                f"new@10 {result.newcomer_error[10]:5.1f}",
                file=out,
                flush=True,
            )
    print(file=out)
    summary(results, out)
    print(
        "\n2nd half: the log-loss of the held-out tables after half the games; new@k: newcomers' mean "
        "percentile error by mu after k games; spread: mean within-table SD of true skill (random tables of 4: "
        "about 0.8); upd/s: median over seeds",
        file=out,
    )
    from ratings.rating import DEFAULT_MODEL

    verdict(results, DEFAULT_MODEL, out)
    print(f"(load average now {', '.join(f'{x:.2f}' for x in os.getloadavg())})", file=out)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({s: [_as_dict(r) for r in runs] for s, runs in results.items()}, handle, indent=1)
    return 0


def _as_dict(result: PoolResult) -> dict:
    return {name: getattr(result, name) for name in PoolResult.__slots__ if name not in ("ratings", "skills")}


POOL_GRIDS: dict[str, dict[str, list[float]]] = {
    "glicko-elo": {"sigma": [65.0, 80.0, 100.0, 150.0], "centre_weight": [0.0, 1.0, 2.0]},
}
"""What ``--scenario pool --tune`` searches (on seed + 100), one model's grid at a time."""


def tune_pool(spec: PoolSpec, seed: int, out) -> None:
    for name, grid in POOL_GRIDS.items():
        print(f"\ntuning {name} on seed {seed}, by tau (conservative), then log-loss:", file=out)
        ranked = []
        for values in itertools.product(*grid.values()):
            params = dict(zip(grid, values, strict=True))
            ranked.append((run_pool(make_model(name, **params), spec, seed), params))
        ranked.sort(key=lambda pair: (-pair[0].tau_conservative, pair[0].log_loss))
        for result, params in ranked:
            print(
                f"  {params}: tau {result.tau_conservative:.4f} logloss {result.log_loss:.5f} "
                f"new@10 {result.newcomer_error[10]:.1f}",
                file=out,
            )
