"""Django system checks for the ratings settings: a bad model setting fails at startup
(``manage.py check``, every server and worker start), not at the first finished ranked game."""

from django.conf import settings
from django.core import checks

from ratings.conf import setting
from ratings.rating import MODELS, make_model


@checks.register()
def rating_model_settings(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    name, params = setting("RATINGS_MODEL"), setting("RATINGS_MODEL_PARAMS")
    if name not in MODELS:
        return [
            checks.Error(
                f"RATINGS_MODEL {name!r} is not a rating model.",
                hint=f"One of: {', '.join(MODELS)}.",
                id="ratings.E001",
            )
        ]
    try:
        model = make_model(name, **params)
    except (TypeError, ValueError) as error:
        return [
            checks.Error(
                f"RATINGS_MODEL_PARAMS {params!r} do not fit the {name!r} model: {error}",
                hint="Parameters tuned for another model (e.g. elo's k) need RATINGS_MODEL set to that model.",
                id="ratings.E002",
            )
        ]
    own = getattr(model, "provisional_sigma", 0.0)
    if own and hasattr(settings, "RATINGS_PROVISIONAL_SIGMA_SHARE"):
        return [
            checks.Warning(
                f"RATINGS_PROVISIONAL_SIGMA_SHARE is set, but new {name!r} pools decide provisional status by the "
                f"model's own provisional_sigma ({own:g}).",
                hint='Set RATINGS_MODEL_PARAMS = {"provisional_sigma": 0} to use the share in new pools too '
                "(pools stored before glicko-elo had provisional_sigma use the share anyway).",
                id="ratings.W001",
            )
        ]
    return []
