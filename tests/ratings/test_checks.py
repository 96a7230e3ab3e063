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


def test_a_site_share_that_new_glicko_elo_pools_would_ignore_is_pointed_out(settings):
    settings.RATINGS_PROVISIONAL_SIGMA_SHARE = 0.6
    [warning] = rating_model_settings()
    assert warning.id == "ratings.W001" and "58" in warning.msg
    settings.RATINGS_MODEL_PARAMS = {"provisional_sigma": 0}  # the share decides in new pools too
    assert rating_model_settings() == []
    settings.RATINGS_MODEL, settings.RATINGS_MODEL_PARAMS = "elo", {}  # no threshold of its own
    assert rating_model_settings() == []
