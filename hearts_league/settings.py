"""Settings, read from the environment (12-factor).

With nothing configured the project runs on an embedded default that needs only Python:
a SQLite file, the in-memory channel layer and an in-process Celery worker that still honours
countdowns. Set ``DATABASE_URL`` and ``REDIS_URL`` for PostgreSQL and Redis, and
``HEARTS_PROFILE=production`` for the hardened profile that ``manage.py check --deploy`` accepts.
"""

import hashlib
import hmac
import os
import secrets
from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()


def local_secret(name: str) -> str:
    """A random secret kept in ``var/<name>`` (git-ignored, mode 0600), made the first time it is
    asked for: every process of one checkout (server, workers, tests) then shares it."""
    path = BASE_DIR / "var" / name
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, exist_ok=True)
    temporary = path.with_name(f".{name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_urlsafe(48))
    try:
        os.link(temporary, path)  # atomic, and refused if another process made it first
    except FileExistsError:
        pass
    finally:
        temporary.unlink()
    return path.read_text().strip()


PROFILE = env.str("HEARTS_PROFILE", default="development")
if PROFILE not in {"development", "production"}:
    raise environ.ImproperlyConfigured("HEARTS_PROFILE must be 'development' or 'production'")
IS_PRODUCTION = PROFILE == "production"


# Off unless a developer asks for it: Django's debug page shows a request's local variables,
# which for a game include every dealt hand.
DEBUG = env.bool("DEBUG", default=False)
# production has no default: a deploy must set its own
SECRET_KEY = env.str("SECRET_KEY") if IS_PRODUCTION else env.str("SECRET_KEY", default="") or local_secret("secret_key")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=[] if IS_PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
CSRF_FAILURE_VIEW = "hearts_league.errors.csrf_failure"

# The key of the event logs' hash chain (tournaments.games.eventstore): kept out of the database, so that
# writing to the database is not enough to rewrite a game's history unseen. It must never change
# (every stored game would audit as tampered). Development: a random key made once in var/. Production:
# set it; by default it is derived from SECRET_KEY (so set it before ever rotating SECRET_KEY).
HEARTS_CHAIN_KEY = env.str("HEARTS_CHAIN_KEY", default="") or (
    hmac.new(SECRET_KEY.encode(), b"hearts-league event chain", hashlib.sha256).hexdigest()
    if IS_PRODUCTION
    else local_secret("chain-key")
)

INSTALLED_APPS = [
    "daphne",
    "hearts_league.apps.GuardedAdminConfig",  # django.contrib.admin, every changelist guarded
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc as our own static files: the docs work offline
    "channels",
    "axes",  # counts failed logins by client address and locks an address out (hearts_league.logins)
    "tournaments",
    "ratings",
    "analysis",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # cookie, then Accept-Language
    "django.middleware.common.CommonMiddleware",
    "hearts_league.text_input.RefuseNulCharactersMiddleware",  # before any view reads a parameter
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "hearts_league.i18n.ProfileLanguageMiddleware",  # a signed-in player's own choice first
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "hearts_league.logins.LockoutMiddleware",  # last, as axes.middleware.AxesMiddleware must be
]

ROOT_URLCONF = "hearts_league.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "hearts_league.asgi.application"

# --- Database ---------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
# Under ASGI each request may run in a different thread: persistent connections would leak,
# so they stay off (Django's async docs); PostgreSQL may use psycopg's pool instead.
DATABASES["default"]["CONN_MAX_AGE"] = 0
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})
    if env.bool("DATABASE_POOL", default=True):
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": env.int("DATABASE_POOL_MAX", default=10),
        }
    # Prepared statements: psycopg prepares a statement on a connection after it has run
    # ``prepare_threshold`` times there, and PostgreSQL then skips parsing and planning it. They
    # need server-side parameter binding. A third less PostgreSQL CPU per card played
    # (bench/load.py). "none" turns them off, for a pooler that cannot keep them (PgBouncer in
    # transaction mode before 1.21).
    prepare_threshold = env.str("DATABASE_PREPARE_THRESHOLD", default="5").strip().lower()
    if prepare_threshold not in ("none", ""):
        if not (prepare_threshold.isascii() and prepare_threshold.isdigit()):  # isdigit takes '²'; int does not
            raise environ.ImproperlyConfigured("DATABASE_PREPARE_THRESHOLD must be a whole number or 'none'")
        DATABASES["default"]["OPTIONS"].update(
            {"server_side_binding": True, "prepare_threshold": int(prepare_threshold)}
        )
    DATABASES["default"]["TEST"] = {"NAME": env.str("DATABASE_TEST_NAME", default="test_hearts_league")}
else:
    # SQLite: wait for the writer instead of failing with "database is locked".
    # IMMEDIATE: a transaction takes the write lock when it begins, so concurrent commands
    # queue up instead of failing to upgrade a read lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
    # A file, not the shared in-memory database, so threads in tests wait for the lock as in real use.
    # One file per test run (runs may overlap on a developer's machine).
    DATABASES["default"]["TEST"] = {
        "NAME": env.str("DATABASE_TEST_NAME", default=f"/tmp/hearts-league-test-{os.getpid()}.sqlite3")
    }
USING_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# PostgreSQL: a server process's event loop writes live moves on connections of its own, at most
# this many (tournaments.games.loop_db), beside Django's pool of DATABASE_POOL_MAX.
DATABASE_LOOP_POOL_MAX = env.int("DATABASE_LOOP_POOL_MAX", default=4)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Adding a language: README, "Languages".
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "django_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # the header's switch is remembered for a year
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# collectstatic target for production; in development WhiteNoise serves from the apps (finders).
STATIC_ROOT = env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")) if IS_PRODUCTION else None
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if IS_PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not IS_PRODUCTION

LOGIN_URL = "/admin/login/"

# --- Login doors: failed-login lockouts (django-axes) --------------------------------------
# Axes refuses every authenticate() from an address locked out, before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("HEARTS_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("HEARTS_LOGIN_LOCKOUT_MINUTES", default=15))
# By address alone: rotating usernames (password spraying) from one address is locked out too.
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_CLIENT_IP_CALLABLE = "hearts_league.logins.client_ip"
AXES_LOCKOUT_CALLABLE = "hearts_league.logins.lockout_response"
AXES_DISABLE_ACCESS_LOG = True  # failures are counted all the same; no row per successful login
# hearts_league.logins.LockoutMiddleware is AxesMiddleware with its async path fixed
SILENCED_SYSTEM_CHECKS = ["axes.W002"]

# --- Redis: channel layer and Celery broker ---------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")

CACHES = (
    {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    if REDIS_URL
    else {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
)


def redis_channel_layers(url: str) -> dict:
    """Channels over Redis pub/sub: each process subscribes once to a game's group and hands
    every PUBLISH to its own connections. Measured against channels_redis.core under the load
    benchmark: Daphne 17.0 -> 14.7 ms of CPU per play, Redis 0.6 -> 0.1, and no lost messages
    (core lost about one delivery in 4,000). Both deliver at most once; clients resume by seq."""
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [url], "prefix": CHANNEL_LAYER_PREFIX},
        }
    }


# Pub/sub channels are the whole Redis server's, not one of its databases': deployments (or test
# runs side by side, bin/test) sharing a server name their groups under prefixes of their own.
CHANNEL_LAYER_PREFIX = env.str("CHANNEL_LAYER_PREFIX", default="asgi")


if REDIS_URL:
    CHANNEL_LAYERS = redis_channel_layers(REDIS_URL)
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Longest countdown we ever schedule (a 60 s turn, a 30 s grace period) is far below this;
# Redis redelivers an unacknowledged task only after the visibility timeout.
CELERY_VISIBILITY_TIMEOUT = env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
if not REDIS_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = 0.05  # in-memory queue: poll often
# Without a broker, tasks run on a worker thread inside the web process (see hearts_league.celery).
CELERY_EMBEDDED_WORKER = env.bool("CELERY_EMBEDDED_WORKER", default=not REDIS_URL)
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="hearts")
# post-game analyses (seconds of CPU per task): their own queue and workers keep them from delaying
# CPU moves and turn timers; by default the same queue, so that one worker does everything
CELERY_ANALYSIS_QUEUE = env.str("CELERY_ANALYSIS_QUEUE", default=CELERY_TASK_DEFAULT_QUEUE)

# --- Client input limits (docs/reliability.md, "Hostile input") ------------------------
# Longest request body: Django refuses a longer form or body (RequestDataTooBig, answered 413
# by hearts_league.errors) and the REST JSON parser refuses a longer JSON body (413 too).
HEARTS_MAX_BODY_BYTES = env.int("HEARTS_MAX_BODY_BYTES", default=1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = HEARTS_MAX_BODY_BYTES
# Deepest nesting of arrays/objects in JSON a client sends (hearts_league.json_input.parse_json).
HEARTS_JSON_MAX_DEPTH = env.int("HEARTS_JSON_MAX_DEPTH", default=32)
# Reverse proxies in front of the app that append the client's address to X-Forwarded-For.
# 0: X-Forwarded-For is ignored (any client can set it) and the address is REMOTE_ADDR.
HEARTS_TRUSTED_PROXIES = env.int("HEARTS_TRUSTED_PROXIES", default=0)
if HEARTS_TRUSTED_PROXIES < 0:
    raise environ.ImproperlyConfigured("HEARTS_TRUSTED_PROXIES must be 0 or more")

# --- REST framework and OpenAPI ---------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_PARSER_CLASSES": [
        "hearts_league.json_input.LimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # throttles key anonymous clients on this address (hearts_league.client_ip agrees with it)
    "NUM_PROXIES": HEARTS_TRUSTED_PROXIES,
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "hearts_league.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "auth": env.str("THROTTLE_AUTH", default="30/minute"),
        "commands": env.str("THROTTLE_COMMANDS", default="300/minute"),
        "analysis": env.str("THROTTLE_ANALYSIS", default="10/hour"),  # POSTs that start an analysis
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Hearts League API",
    "DESCRIPTION": "Tables, games as event logs, replays, audits, tournaments and ratings.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # links between operations (a created game's id to its commands...): hearts_league.openapi
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "hearts_league.openapi.add_links"],
    # one schema name per choice set used in several places
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "tournaments.models.core.Game.Status",
        "TournamentStatusEnum": "tournaments.models.competitions.Tournament.Status",
        "RegistrationStatusEnum": "tournaments.models.competitions.Registration.Status",
        "PlayStatusEnum": "tournaments.models.competitions.Round.Status",  # rounds and tables
        "QueueStatusEnum": "ratings.models.QueueEntry.Status",
        "TableSizeEnum": "tournaments.models.competitions.TABLE_SIZE_CHOICES",
        "BotKindEnum": [("random", "random"), ("rule", "rule"), ("montecarlo", "montecarlo")],
    },
}

# --- Production hardening (manage.py check --deploy prints no warnings) -----------------
if IS_PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # one line per task received and done is noise every few seconds (the sweeper runs every 5 s)
    "loggers": {
        name: {"level": env.str("CELERY_TASK_LOG_LEVEL", default="WARNING")}
        for name in ("celery.app.trace", "celery.worker.strategy")
    },
}

# --- Live play ------------------------------------------------------------------------------
HEARTS_CPU_DELAY = env.float("HEARTS_CPU_DELAY", default=0.6)  # seconds, so humans can follow
HEARTS_TURN_TIME_SCALE = env.float("HEARTS_TURN_TIME_SCALE", default=1.0)  # tests shorten turn times
HEARTS_AWAY_GRACE = env.float("HEARTS_AWAY_GRACE", default=30.0)  # seconds before a CPU takes a seat
HEARTS_SWEEP_GRACE = env.float("HEARTS_SWEEP_GRACE", default=5.0)  # overdue by this much -> sweeper
# A move whose game this process changed last is written in one guarded statement from the
# cached state, row and seats, without a lock (PostgreSQL; tournaments.games.services).
HEARTS_MOVES_ON_CACHE = env.bool("HEARTS_MOVES_ON_CACHE", default=True)
# A server process holding WebSockets records a heartbeat this often; the sweeper drops the
# connections of one silent for HEARTS_SERVER_DEAD_AFTER seconds (it died without closing them).
HEARTS_SERVER_HEARTBEAT = env.float("HEARTS_SERVER_HEARTBEAT", default=10.0)
HEARTS_SERVER_DEAD_AFTER = env.float("HEARTS_SERVER_DEAD_AFTER", default=45.0)
if HEARTS_SERVER_DEAD_AFTER <= 2 * HEARTS_SERVER_HEARTBEAT:
    raise environ.ImproperlyConfigured(
        "HEARTS_SERVER_DEAD_AFTER must be more than twice HEARTS_SERVER_HEARTBEAT, or a live server's "
        "connections could be dropped between two heartbeats"
    )
HEARTS_INVITATION_SECONDS = env.float("HEARTS_INVITATION_SECONDS", default=600.0)  # a seat held for an invitee
HEARTS_STANDIN_BOT = env.str("HEARTS_STANDIN_BOT", default="rule")  # plays for away / timed-out seats
# Post-game analysis (analysis app): fields over engine.analysis.DEFAULT_BUDGET, as JSON, e.g.
# {"play_samples": 160}; an analysis keeps the budget it started with, so a rebuild is identical
HEARTS_ANALYSIS_BUDGET = env.json("HEARTS_ANALYSIS_BUDGET", default={})
# Called as hook(game_id=...) by the tournaments.game_finished task after a game ends.
HEARTS_GAME_FINISHED_HOOKS: list[str] = [
    "ratings.services.rating_record_game",
    "tournaments.competitions.services.competition_game_finished",
]
# Called as hook(player_ids=..., league_id=...) -> {player_id: rating} to seed a Swiss round 1
# (league_id None: the global pool). Empty: every tournament is seeded by lot.
HEARTS_SEEDING_RATINGS = env.str("HEARTS_SEEDING_RATINGS", default="ratings.selectors.seeding_ratings")
CELERY_BEAT_SCHEDULE = {
    "sweep-stalled-games": {
        "task": "tournaments.sweep",
        "schedule": env.float("HEARTS_SWEEP_EVERY", default=5.0),
    },
    "match-ranked-queue": {
        "task": "ratings.match_ranked_queue",
        "schedule": env.float("RATINGS_MATCH_EVERY", default=5.0),
    },
}
HEARTS_BOARD_EVERY = env.float("HEARTS_BOARD_EVERY", default=0.3)  # a tournament board's frames, at most
HEARTS_WS_MAX_FRAME = env.int("HEARTS_WS_MAX_FRAME", default=4096)  # characters
HEARTS_WS_MAX_DEPTH = env.int("HEARTS_WS_MAX_DEPTH", default=8)  # nesting of a frame's JSON (commands need 3)
HEARTS_WS_RATE = env.float("HEARTS_WS_RATE", default=10.0)  # frames per second per connection...
HEARTS_WS_BURST = env.int("HEARTS_WS_BURST", default=30)  # ...with bursts of this many
HEARTS_WS_FLOOD_CLOSE = env.int("HEARTS_WS_FLOOD_CLOSE", default=50)  # refused frames before closing
