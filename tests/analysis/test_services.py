"""The analysis of a stored game: what is flagged, what is not, and that it rebuilds exactly."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from analysis import services
from analysis.models import AnalysedDecision, GameAnalysis, SeatSummary
from engine.analysis import THRESHOLDS
from tests.analysis.conftest import QUEEN_PLAYS, play_scripted
from tests.engine.helpers import hands
from tests.tournaments.helpers import seated_table
from tournaments.models import GameEvent

pytestmark = pytest.mark.django_db

FIELDS = [
    "position",
    "seq",
    "seat",
    "kind",
    "hand_number",
    "trick_number",
    "total_before",
    "taken",
    "taken_expected",
    "best",
    "best_expected",
    "loss",
    "loss_se",
    "grade",
    "forced",
    "options",
    "samples",
    "seed",
]


def rows(analysis):
    return list(analysis.decisions.order_by("position").values_list(*FIELDS))


def test_dumping_the_queen_on_your_own_trick_is_a_blunder_and_a_safe_spade_is_suggested(queen_game):
    game, _, _ = queen_game
    analysis = services.analysis_run_inline(game=game)
    assert analysis.status == GameAnalysis.Status.DONE and analysis.progress == 1.0
    queen_seq = GameEvent.objects.get(game=game, type="CardPlayed", payload__card="QS").seq
    queen = analysis.decisions.get(seq=queen_seq)
    assert (queen.seat, queen.kind, queen.taken, queen.grade) == (0, "play", "QS", "blunder")
    assert queen.best in ("2S", "3S", "6S") and queen.loss >= THRESHOLDS[2]
    summary = SeatSummary.objects.get(analysis=analysis, seat=0)
    assert summary.blunder >= 1 and summary.decisions == 13


def test_every_decision_is_stored_once_and_forced_plays_are_never_flagged(queen_game):
    game, _, _ = queen_game
    analysis = services.analysis_run_inline(game=game)
    plays = GameEvent.objects.filter(game=game, type="CardPlayed").count()
    assert analysis.decisions_total == analysis.decisions.count() == plays == 52
    forced = analysis.decisions.filter(forced=True)
    assert forced.exists()  # the last trick, at least
    assert set(forced.values_list("grade", flat=True)) == {"good"}
    assert set(forced.values_list("loss", flat=True)) == {0.0}
    assert [s.decisions for s in analysis.summaries.all()] == [13, 13, 13, 13]


def test_rebuilding_gives_identical_results(queen_game):
    game, _, _ = queen_game
    first = rows(services.analysis_run_inline(game=game))
    summaries = list(SeatSummary.objects.values_list("seat", "total_loss", "blunder", "mistake"))
    again = services.analysis_run_inline(game=game, rebuild=True)
    assert rows(again) == first
    assert list(SeatSummary.objects.values_list("seat", "total_loss", "blunder", "mistake")) == summaries


def test_a_stopped_analysis_resumes_from_the_decisions_stored(queen_game, settings):
    game, _, _ = queen_game
    whole = rows(services.analysis_run_inline(game=game))

    class Lost:  # a worker that dies after the first chunk
        def review_chunks(self, analysis_id, chunks):
            services.analysis_review_chunk(analysis_id=analysis_id, positions=chunks[0][:5])

    services.analysis_request(game=game, rebuild=True, runner=Lost())
    analysis = GameAnalysis.objects.get(game=game)
    assert analysis.status == GameAnalysis.Status.RUNNING and analysis.decisions_done == 5
    reviewed = []
    asked_again = services.analysis_request(game=game, runner=Lost())  # in progress: nothing resent
    assert asked_again.decisions_done == 5
    an_hour_ago = timezone.now() - timedelta(hours=1)
    GameAnalysis.objects.filter(pk=analysis.pk).update(sent_at=an_hour_ago, updated_at=an_hour_ago)  # stalled

    class Counting(services.InlineRunner):
        def review_chunks(self, analysis_id, chunks):
            reviewed.extend(p for c in chunks for p in c)
            super().review_chunks(analysis_id, chunks)

    services.analysis_request(game=game, runner=Counting())
    analysis.refresh_from_db()
    assert analysis.status == GameAnalysis.Status.DONE
    assert len(reviewed) == 52 - 5  # the five stored were not reviewed again
    assert rows(analysis) == whole
    # a redelivered chunk changes nothing
    assert services.analysis_review_chunk(analysis_id=analysis.pk, positions=reviewed[:3]) == 0
    assert AnalysedDecision.objects.filter(analysis=analysis).count() == 52


# the other seats' unplayed cards rotated among them: consistent with everything seat 0 has seen
# up to the queen (every card played by then is where it was; nobody has shown a void)
ROTATED = hands(
    "2C 3C 4C 5C 2D 3D 4D 5D 6D 2S 3S 6S QS",
    "AC 5S 9S TS KS AS 7D 8D 9D TD JD KH AH",
    "6C JS KC QC JC 7S 8S AD KD QD 2H 3H 4H",
    "TC 4S 7C 8C 9C 5H 6H 7H 8H 9H TH JH QH",
)


def test_the_review_of_a_seat_does_not_change_when_the_others_hidden_cards_are_swapped(queen_game, scheduler):
    game, _, _ = queen_game
    first = services.analysis_run_inline(game=game)
    other, people, _ = seated_table(rules={"passing": "off"}, deals=[ROTATED], hand_limit=1)
    other = play_scripted(other, people, QUEEN_PLAYS)
    GameAnalysis.objects.create(game=other, version=first.version, seed_key=first.seed_key, budget=first.budget)
    second = services.analysis_run_inline(game=other)

    def seat0_until_the_queen(analysis):
        return [r for r in rows(analysis) if r[2] == 0 and r[5] <= 2]  # seat 0, tricks 1 and 2

    mine = seat0_until_the_queen(first)
    assert len(mine) == 2 and mine[1][7] == "QS" and mine[1][13] == "blunder"
    assert seat0_until_the_queen(second) == mine
