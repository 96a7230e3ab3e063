"""A rating-model setting that cannot work is reported at startup, not at the first ranked game."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from ratings.checks import rating_model_settings


def test_the_default_settings_pass():
    assert rating_model_settings() == []


def test_parameters_tuned_for_another_model_are_reported(settings):
    settings.RATINGS_MODEL_PARAMS = {"k": 24}  # elo's, while the default model is glicko-elo
    [error] = rating_model_settings()
    assert error.id == "ratings.E002" and "k" in error.msg
    settings.RATINGS_MODEL = "elo"
    assert rating_model_settings() == []


def test_an_unknown_model_stops_manage_py_check(settings):
    settings.RATINGS_MODEL = "trueskill"
    assert [e.id for e in rating_model_settings()] == ["ratings.E001"]
    with pytest.raises(SystemCheckError, match=r"ratings\.E001"):
        call_command("check")
