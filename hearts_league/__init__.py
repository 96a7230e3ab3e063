"""The Hearts League Django project: settings, URLs, ASGI and Celery wiring."""

from .celery import app as celery_app

__all__ = ("celery_app",)
