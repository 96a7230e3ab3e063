"""Analysis services: request an analysis, review a chunk of decisions, finish, read.

Idempotent and resumable: a decision is stored once (unique per analysis and position),
every review depends only on the game's log, the analysis' ``seed_key`` and ``budget``
(``engine.analysis``), so a redelivered or rerun chunk skips what is stored and a
rebuild gives identical rows. The work is split into chunks of decisions that workers
review in parallel; whichever chunk stores the last decision writes the summaries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from analysis.models import AnalysedDecision, GameAnalysis, SeatSummary
from engine import analysis as engine_analysis
from engine.game import ReplayError
from hearts_league.api import DomainError
from tournaments.games import visibility
from tournaments.games.eventstore import is_engine_event
from tournaments.models import Game, GameEvent

log = logging.getLogger(__name__)

STALL_SECONDS = 300  # an analysis with no review stored for this long is resent when asked again
CHUNK = 12  # decisions per task (as engine.analysis_bench): spread evenly over the workers; each replays the log once


def analysis_budget() -> engine_analysis.Budget:
    """The budget new analyses use: ``engine.analysis.DEFAULT_BUDGET`` with the fields of the
    ``HEARTS_ANALYSIS_BUDGET`` setting (a dict) over it."""
    override = getattr(settings, "HEARTS_ANALYSIS_BUDGET", None) or {}
    return engine_analysis.Budget.from_dict({**engine_analysis.DEFAULT_BUDGET.to_dict(), **override})


def seed_key_of(game: Game) -> str:
    """The public key every decision's seed of this game is hashed from."""
    return f"game:{game.pk}"


# --- who may ask --------------------------------------------------------------------------


def analysis_check_visible(game: Game, user) -> visibility.Sight:
    """The requester's sight of ``game`` if it may see its analysis, else a DomainError.

    An analysis reads every seat's cards, so it is shown only to whoever may see the whole
    game: never while it is live (409 ``game_not_over``: analysing a live game would be
    cheating), never for a sealed table whose duplicate round is still being played (409
    ``round_not_over``; 403 ``hidden_until_round_over`` for those who may not even watch it).
    """
    sight = visibility.sight(game, user)
    if not sight.may_watch:
        raise DomainError(
            "hidden_until_round_over",
            "This table plays deals other tables of its round are "
            "still playing: it can be watched once the round is over.",
            status=403,
        )
    if not sight.everything:
        if game.is_over:
            raise DomainError(
                "round_not_over",
                "This game's deals are still being played at other tables: it can be analysed once the round is over.",
                status=409,
            )
        raise DomainError(
            "game_not_over",
            "Only finished games can be analysed: analysing a live game would show its players what they may not know.",
            status=409,
        )
    return sight


def analysable(game: Game) -> bool:
    """Whether everything of ``game`` may be shown to anyone (over and not sealed)."""
    return game.is_over and not game.sealed


# --- the log ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameLog:
    """A game's engine events, with the seq of each in the game's log."""

    events: list[dict]
    seqs: list[int]
    deals: list | None

    def decision_positions(self) -> list[int]:
        return [i for i, e in enumerate(self.events) if e["type"] in engine_analysis.DECISION_EVENTS]


def game_log(game: Game) -> GameLog:
    rows = GameEvent.objects.filter(game=game, seq__lte=game.seq).order_by("seq")
    events, seqs = [], []
    for seq, type_, version, payload in rows.values_list("seq", "type", "version", "payload"):
        if is_engine_event(type_):
            events.append({"type": type_, "v": version, **payload})
            seqs.append(seq)
    return GameLog(events, seqs, game.planned_deals or None)


# --- requesting ---------------------------------------------------------------------------


REVIEW_CHUNK = "analysis.review_chunk"  # the task analysis.tasks registers


class CeleryScheduler:
    """Sends the chunks to Celery. On the embedded default with no worker in this process
    (``manage.py``, a WSGI server, tests) the chunks run here, after the commit."""

    def review_chunks(self, analysis_id: int, chunks: list[list[int]]) -> None:
        from hearts_league.celery import embedded_worker_running

        if settings.CELERY_EMBEDDED_WORKER and not embedded_worker_running():
            InlineRunner().review_chunks(analysis_id, chunks)
            return
        for positions in chunks:  # by name: the task module builds on this one
            current_app.send_task(REVIEW_CHUNK, args=[analysis_id, positions], queue=settings.CELERY_ANALYSIS_QUEUE)


scheduler = CeleryScheduler()


def analysis_request(*, game: Game, user=None, rebuild: bool = False, runner=None) -> GameAnalysis:
    """Start (or continue) the analysis of a game anyone may see whole; return it.

    Asking again for one done returns it as it is, and for one in progress too; for one that
    failed, or stalled (nothing stored for ``STALL_SECONDS``: a worker lost with its task),
    sends the chunks whose decisions are not all stored. ``rebuild``: drop the stored reviews
    and compute them again. ``runner``: what runs the chunks (default: ``scheduler``).
    The caller checks who may see it (``analysis_check_visible``).
    """
    if not analysable(game):
        raise DomainError("game_not_over", "Only finished games can be analysed.", status=409)
    GameAnalysis.objects.get_or_create(  # two first requests at once: one creates, the other reads it
        game=game,
        defaults={
            "version": engine_analysis.ANALYSIS_VERSION,
            "seed_key": seed_key_of(game),
            "budget": analysis_budget().to_dict(),
            "requested_by": user if user is not None and user.is_authenticated else None,
        },
    )
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().get(game=game)
        stale = analysis.version != engine_analysis.ANALYSIS_VERSION
        if rebuild or stale:
            analysis.decisions.all().delete()
            analysis.summaries.all().delete()
            analysis.version = engine_analysis.ANALYSIS_VERSION
            analysis.budget = analysis_budget().to_dict() if stale else analysis.budget
            analysis.status = GameAnalysis.Status.PENDING
            analysis.decisions_done = 0
            analysis.error = ""
            analysis.finished_at = None
        elif analysis.status == GameAnalysis.Status.DONE:
            return analysis
        elif (
            analysis.sent_at is not None
            and analysis.status != GameAnalysis.Status.FAILED
            and max(analysis.sent_at, analysis.updated_at) > timezone.now() - timedelta(seconds=STALL_SECONDS)
        ):
            return analysis  # in progress: its chunks are with the workers
        if analysis.status == GameAnalysis.Status.FAILED:
            analysis.status = GameAnalysis.Status.PENDING
            analysis.error = ""
        positions = game_log(game).decision_positions()
        analysis.decisions_total = len(positions)
        analysis.sent_at = timezone.now()
        analysis.save()
        stored = set(analysis.decisions.values_list("position", flat=True))
        missing = [p for p in positions if p not in stored]
        chunks = [missing[i : i + CHUNK] for i in range(0, len(missing), CHUNK)]
    analysis_id = analysis.pk
    if not chunks:
        analysis_finish(analysis_id=analysis_id)
    elif runner is not None:
        runner.review_chunks(analysis_id, chunks)
    else:  # workers must find the row committed (a caller's transaction included)
        transaction.on_commit(lambda: _send(scheduler, analysis_id, chunks))
    return analysis


def _send(runner, analysis_id: int, chunks: list[list[int]]) -> None:
    try:
        runner.review_chunks(analysis_id, chunks)
    except Exception:  # the request is stored: asking again resends what is missing
        log.exception("could not send the chunks of analysis %s", analysis_id)


# --- computing ----------------------------------------------------------------------------


def analysis_review_chunk(*, analysis_id: int, positions: list[int]) -> int:
    """Review the decisions at ``positions`` not stored yet; store them; finish the analysis
    if that was the last. Returns how many were reviewed now (0 for a redelivered chunk)."""
    analysis = GameAnalysis.objects.select_related("game").filter(pk=analysis_id).first()
    if analysis is None or analysis.status in (GameAnalysis.Status.DONE, GameAnalysis.Status.FAILED):
        return 0
    stored = set(analysis.decisions.filter(position__in=positions).values_list("position", flat=True))
    wanted = [p for p in positions if p not in stored]
    if not wanted:
        analysis_finish(analysis_id=analysis_id)
        return 0
    if analysis.status == GameAnalysis.Status.PENDING:
        GameAnalysis.objects.filter(pk=analysis_id, status=GameAnalysis.Status.PENDING).update(
            status=GameAnalysis.Status.RUNNING, started_at=timezone.now()
        )
    game = analysis.game
    glog = game_log(game)
    budget = engine_analysis.Budget.from_dict(analysis.budget)
    reviewed = 0
    try:
        for d in engine_analysis.decisions(glog.events, glog.deals, wanted):
            seed = engine_analysis.decision_seed(analysis.seed_key, d.position, d.seat)
            r = engine_analysis.review(d.view, d.taken, seed=seed, budget=budget)
            _store(analysis, glog, d, r)
            reviewed += 1
    except (ReplayError, ValueError) as e:  # a log the engine refuses: nothing to retry
        log.exception("analysis %s of game %s failed", analysis_id, game.pk)
        GameAnalysis.objects.filter(pk=analysis_id).update(
            status=GameAnalysis.Status.FAILED, error=str(e)[:200], finished_at=timezone.now()
        )
        return reviewed
    analysis_finish(analysis_id=analysis_id)
    return reviewed


def _store(analysis: GameAnalysis, glog: GameLog, d, r: dict) -> None:
    row = AnalysedDecision(
        analysis=analysis,
        position=d.position,
        seq=glog.seqs[d.position],
        seat=d.seat,
        kind=r["kind"],
        hand_number=r["hand_number"],
        trick_number=r["trick_number"],
        total_before=d.view["totals"][d.seat],
        taken=r["taken"],
        taken_expected=r["taken_expected"],
        best=r["best"],
        best_expected=r["best_expected"],
        loss=r["loss"],
        loss_se=r["loss_se"],
        grade=r["class"],
        forced=r["forced"],
        options=r["options"],
        samples=r["samples"],
        seed=r["seed"],
    )
    with transaction.atomic():
        AnalysedDecision.objects.bulk_create([row], ignore_conflicts=True)  # a parallel rerun stored it: same row
        done = analysis.decisions.count()
        GameAnalysis.objects.filter(pk=analysis.pk).update(decisions_done=done, updated_at=timezone.now())


def analysis_finish(*, analysis_id: int) -> bool:
    """Once every decision is stored: write the per-seat summaries and mark the analysis done
    (once; True if this call did)."""
    with transaction.atomic():
        analysis = GameAnalysis.objects.select_for_update().select_related("game").filter(pk=analysis_id).first()
        if analysis is None or analysis.status == GameAnalysis.Status.DONE:
            return False
        done = analysis.decisions.count()
        if done < analysis.decisions_total:
            return False
        results = [
            {"seat": seat, "loss": loss, "forced": forced, "class": grade}
            for seat, loss, forced, grade in analysis.decisions.values_list("seat", "loss", "forced", "grade")
        ]
        analysis.summaries.all().delete()
        SeatSummary.objects.bulk_create(
            [
                SeatSummary(
                    analysis=analysis,
                    seat=row["seat"],
                    decisions=row["decisions"],
                    choices=row["choices"],
                    total_loss=row["total_loss"],
                    mean_loss=row["mean_loss"],
                    mean_loss_per_choice=row["mean_loss_per_choice"],
                    **row["counts"],
                )
                for row in engine_analysis.summarise(results, analysis.game.players_count)
            ]
        )
        analysis.status = GameAnalysis.Status.DONE
        analysis.decisions_done = done
        analysis.finished_at = timezone.now()
        analysis.started_at = analysis.started_at or analysis.finished_at
        analysis.save()
    return True


class InlineRunner:
    """Runs the chunks here, one after the other; ``progress(done, total)`` after each."""

    def __init__(self, progress=None):
        self.progress = progress

    def review_chunks(self, analysis_id: int, chunks: list[list[int]]) -> None:
        total = sum(len(c) for c in chunks)
        done = 0
        for positions in chunks:
            analysis_review_chunk(analysis_id=analysis_id, positions=positions)
            done += len(positions)
            if self.progress is not None:
                self.progress(done, total)


def analysis_run_inline(*, game: Game, rebuild: bool = False, progress=None) -> GameAnalysis:
    """Analyse a game here, in this process (``manage.py analyse_games``, tests)."""
    analysis = analysis_request(game=game, rebuild=rebuild, runner=InlineRunner(progress))
    return GameAnalysis.objects.get(pk=analysis.pk)
