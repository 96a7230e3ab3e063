"""Celery tasks: thin wrappers over the services (idempotent, safe to redeliver)."""

from celery import shared_task

from analysis.services import REVIEW_CHUNK, analysis_review_chunk


@shared_task(name=REVIEW_CHUNK)
def review_chunk(analysis_id: int, positions: list[int]) -> int:
    """Review the decisions at ``positions`` of an analysis (those stored already are skipped)."""
    return analysis_review_chunk(analysis_id=analysis_id, positions=positions)
