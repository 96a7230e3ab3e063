"""The project's URLs plus a view that fails, to see what a failure shows (test_errors.py)."""

from django.urls import path

from hearts_league.urls import handler400, handler403, handler404, handler500, urlpatterns  # noqa: F401


def fails(request):
    hands = {"secret": ["QS", "AH"]}  # a local variable Django's debug page would list
    raise RuntimeError(f"failed holding {hands}")


urlpatterns = [path("boom/", fails), *urlpatterns]
