"""Fixtures for the tournaments tests."""

from __future__ import annotations

import pytest

from tournaments.dispatch import scheduler as dispatch_scheduler


class RecordingScheduler:
    """Stands in for Celery: records what would be scheduled; ``run_all`` runs it in-process."""

    def __init__(self, capture):
        self.capture = capture
        self.pending: list[tuple] = []
        self.delays: list[float] = []
        self.timers: list[tuple] = []
        self.away_checks: list[tuple] = []
        self.finished: list[int] = []

    def cpu_move(self, game_id, seq, delay):
        self.pending.append((game_id, seq))
        self.delays.append(delay)

    def turn_timer(self, game_id, deadline):
        self.timers.append((game_id, deadline))

    def away_check(self, game_id, seat, since, delay):
        self.away_checks.append((game_id, seat, since))

    def game_finished(self, game_id):
        self.finished.append(game_id)

    def run_all(self, limit=20000) -> int:
        """Make every scheduled CPU move (and those they schedule in turn). Returns moves made."""
        from tournaments.autoplay import moves as turns

        moves = 0
        while self.pending and moves < limit:
            game_id, seq = self.pending.pop(0)
            with self.capture(execute=True):
                moves += int(turns.game_cpu_move(game_id=game_id, seq=seq))
        return moves


@pytest.fixture
def scheduler(monkeypatch, django_capture_on_commit_callbacks, settings):
    """Run on-commit callbacks and record scheduled tasks instead of sending them to Celery."""
    recorder = RecordingScheduler(django_capture_on_commit_callbacks)
    monkeypatch.setattr(dispatch_scheduler, "backend", recorder)
    return recorder
