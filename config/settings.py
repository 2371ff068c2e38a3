"""Eights Ladder settings, all from the environment (12-factor).

DATABASE_URL (PostgreSQL via psycopg 3; unset = SQLite in var/, the zero-setup demo), CELERY_BROKER_URL
(Redis; unset = tasks run in-process), SECRET_KEY, DEBUG, ALLOWED_HOSTS. See README.md and docs/RUNNING.md (the settings table).
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config import stores
from config.env import env_bool, env_float, env_int, env_list, env_rate, env_str
from eights_engine.search import EXPERT_SAMPLES as _expert_samples
from eights_engine.strategies import STRATEGIES as _strategies
from eights_engine.tactics import GUEST_OPPONENTS as _guest_opponents_default

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("EIGHTS_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
#: Send the session and CSRF cookies over HTTPS only. Off by default: `make run` and docker-compose.yml serve plain
#: HTTP on loopback, where a Secure cookie would never come back (no login). Turn it on behind HTTPS.
SECURE_COOKIES = env_bool("SECURE_COOKIES", False)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
#: The largest form body read into memory (bytes): a pasted record of up to 4 MB (``games.local_replay``) must reach
#: the page, which says what is too long; at Django's 2.5 MB the CSRF check could not read the form and answered 403.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "games",
    "tournaments",
    "bots_api",
    "tables",
    "rest_framework.authtoken",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.outages.DatabaseAwayMiddleware",  # a read retried once, 503 not 500, when the database is away
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "sitekit.languages.LanguageMiddleware",  # the account's language, else the cookie, else Accept-Language
    "config.api.ApiErrorMiddleware",  # JSON errors under /api/, also with DEBUG (before CommonMiddleware)
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
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
                "tables.context_processors.invitations",
                "games.notice_views.unread_notices",
            ],
        },
    },
]

#: The database (config.stores.databases): DATABASE_URL (PostgreSQL; DB_CONN_MAX_AGE, DB_POOL_MAX, DB_POOL_TIMEOUT),
#: unset: SQLite in var/ (the zero-setup demo; SQLITE_TIMEOUT_SECONDS).
DATABASE_URL = env_str("DATABASE_URL", "")
DATABASES = stores.databases(DATABASE_URL, VAR_DIR)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

#: The site's languages (docs/TRANSLATING.md): English, Russian and Bulgarian, from gettext catalogues in locale/
#: (``make install`` compiles them). The language is the account's (Player.language), else the switcher's cookie,
#: else the browser's Accept-Language; URLs stay the same. Error codes and the bot protocol stay English.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ru", "Русский"), ("bg", "Български")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True  # serve app static files (admin, API docs) without collectstatic

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise ImproperlyConfigured(f"LOG_LEVEL={LOG_LEVEL!r}: use DEBUG, INFO, WARNING, ERROR or CRITICAL")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "httpx": {"level": "WARNING"},  # one line per bot request is too much; faults are logged by games
        "celery.app.trace": {"level": "WARNING"},
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "sitekit.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # DRF's three, with JSON's refusing a body nested too deeply (400 parse_error, not 500)
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's token authentication from a per-process cache (sitekit.tokens); first: anonymous callers get 401
        "sitekit.tokens.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Counted in the shared cache (CACHES, "Limits" below); a 429 keeps {"error", "detail"}.
    "DEFAULT_THROTTLE_CLASSES": [
        "sitekit.limits.AnonRateThrottle",  # DRF's, counting by sitekit.limits.client_address
        "sitekit.limits.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {"anon": "30/min", "user": "120/min", "bot_verify": "12/min",
                               "seat_view": "600/min", "seat_action": "300/min", "signup": "10/hour",
                               "signup_attempt": "60/hour",  # accounts created; sign-up form posts
                               "record_open": "30/min"},  # records opened in the replay viewer (/replay/open/)
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Eights Ladder API",
    "DESCRIPTION": "Crazy Eights ladders, matches and replays.",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",  # served from this site: no CDN needed
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # request bodies get their own components ("...Request"), so a required text field says minLength 1 there
    "COMPONENT_SPLIT_REQUEST": True,
    # whom a person meets (Play now) and who may enter a tournament share one choice set: one name for both
    "ENUM_NAME_OVERRIDES": {"MatchWithEnum": ["both", "bots", "people"]},
    "PARSER_WHITELIST": ["config.parsers.JSONParser"],  # the API speaks JSON (forms are for pages)
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.api.schema_refuse_nul",
                             "config.api.schema_common_errors"],
}

# ---- Content-Security-Policy (django-csp 4: no page runs inline script or style) ---------------------------------

# No inline script or style anywhere (not even the API docs: config/urls.py): pages load static/js and
# static/css, and every user's words reach a page as text. Should one slip happen, the browser still refuses to
# run what got in. A view that ever needs more says so with csp.decorators. static/ is served by WhiteNoise.
from csp.constants import NONE, SELF  # noqa: E402

INSTALLED_APPS += ["csp"]
MIDDLEWARE += ["config.csp.CSPMiddleware"]  # django-csp's, also on 404/500 with DEBUG
STATICFILES_DIRS = [BASE_DIR / "static"]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}

# ---- Tasks: Celery, its queues and where tasks run (sitekit.dispatch) --------------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
#: Where tasks run (sitekit.dispatch, the one function that sends them): "celery" with a broker; "in_process" without
#: one (`make run`): tasks run in this process and the `ladder_run --forever` process is the one match worker,
#: polling for runnable matches, so no web request ever plays a match (bot calls included). ("eager": tests.)
TASKS = "celery" if CELERY_BROKER_URL else "in_process"
CELERY_TASK_ALWAYS_EAGER = TASKS != "celery"  # a task sent without sitekit.dispatch never waits in a memory broker
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
#: The housekeeping queue, and the stem of the two match queues "<CELERY_QUEUE>.bots" and "<CELERY_QUEUE>.house" (the
#: "Speed" block below). Two deployments (or test runs) sharing one broker database keep apart by their own names;
#: config/test_settings.py gives each test run its own.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "celery")
if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", CELERY_TASK_DEFAULT_QUEUE):
    raise ImproperlyConfigured(f"CELERY_QUEUE={CELERY_TASK_DEFAULT_QUEUE[:40]!r}: a queue name is 1 to 100 letters, "
                               "digits, '.', '_' or '-', e.g. eights")
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
#: A lost broker is retried for ever, at start-up and later (Celery's default gives up after 100 tries and the
#: worker exits): a supervised worker must ride out an outage of any length (docs/OUTAGES.md).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
#: A match task in hand when the broker is lost plays on (it holds the match's lease; games.tasks.advance_match):
#: cancelling it would only leave the match to the watchdog.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_TASK_SOFT_TIME_LIMIT = 600
CELERY_TASK_TIME_LIMIT = 660

#: Celery queues: housekeeping (beat's tasks: watchdog, guest housekeeping, ladder and tournament ticks,
#: and anything else unrouted) on CELERY_QUEUE itself; matches with a bot or a person seated (I/O bound: they wait on
#: HTTP bots and people) on "<CELERY_QUEUE>.bots"; house-only matches (CPU bound) on "<CELERY_QUEUE>.house"
#: (games.tasks.match_queue picks one by the match's seats). Derived from CELERY_QUEUE, so deployments and test runs
#: sharing a broker stay apart. A worker started without -Q takes all three (the tests' worker, `make` targets);
#: the Procfile runs one pool per queue: threads for .bots, prefork for .house, one process for housekeeping.
from kombu import Queue  # noqa: E402

MATCH_QUEUE_BOTS = f"{CELERY_TASK_DEFAULT_QUEUE}.bots"
MATCH_QUEUE_HOUSE = f"{CELERY_TASK_DEFAULT_QUEUE}.house"
HOUSEKEEPING_QUEUE = CELERY_TASK_DEFAULT_QUEUE
CELERY_TASK_QUEUES = [Queue(name) for name in (HOUSEKEEPING_QUEUE, MATCH_QUEUE_BOTS, MATCH_QUEUE_HOUSE)]
CELERY_TASK_ROUTES = {"games.tasks.watchdog": {"queue": HOUSEKEEPING_QUEUE},
                      "games.tasks.guest_housekeeping": {"queue": HOUSEKEEPING_QUEUE}}
#: The bots_api tasks that call bots over HTTP (a Verify's conformance check, up to ~45 s; match_end notices) go
#: to the bots' queue (a threads pool made for waiting on HTTP), never to the single housekeeping process, which
#: must stay free for the watchdog and beat's ticks (tests/games/test_housekeeping_queue.py).
CELERY_TASK_ROUTES.update({"bots_api.tasks.check_bot": {"queue": MATCH_QUEUE_BOTS},
                           "bots_api.tasks.notify_match_end": {"queue": MATCH_QUEUE_BOTS}})

# ---- Matches and ladders: the match lifecycle, its speed, match records ------------------------------------------

#: A match whose task has not stored a ply for this long (seconds) is re-queued by the watchdog.
#: How long a process keeps an API token it looked up (sitekit.tokens): a logout, a deleted token or a deactivated
#: account reaches every process at once through the shared cache; this bounds what bypasses Django's signals.
TOKEN_CACHE_SECONDS = env_int("TOKEN_CACHE_SECONDS", 60, 0, 3600)
MATCH_STALL_SECONDS = env_int("MATCH_STALL_SECONDS", 60, 5, 86400)
#: How long (seconds) a worker's claim on a match lasts before another worker may take it over.
MATCH_LEASE_SECONDS = env_int("MATCH_LEASE_SECONDS", 120, 10, 86400)
#: How long (ms) a Celery worker plays one match before queueing it again behind the others (``games.tasks``), so
#: matches whose bots answer slowly never hold every worker. Checked before each ply: a slice can overrun it by a turn.
MATCH_SLICE_MS = env_int("MATCH_SLICE_MS", 1000, 50, 600000)
#: A match that a worker took and got nothing from (no ply stored: the worker died with it, or playing it raised)
#: more often than this in a row is aborted (unrated): our failure, not a player's. An outage of the broker, the
#: cache or the database never counts (games.services.match_note_stall). MATCH_MAX_RESUMES: its older name, still read.
MATCH_MAX_FAILURES = env_int("MATCH_MAX_FAILURES", env_int("MATCH_MAX_RESUMES", 5, 1, 1000), 1, 1000)

#: A person's move clock (seconds): when it runs out the fallback action is played for them (a "clock" fault).
HUMAN_MOVE_SECONDS = env_int("HUMAN_MOVE_SECONDS", 60, 5, 86400)
#: Between deals the table keeps the score card up (and the last deal's table) until the person presses Next deal,
#: or for this many seconds (0: the next deal is drawn at once).
TABLE_NEXT_DEAL_SECONDS = env_int("TABLE_NEXT_DEAL_SECONDS", 8, 0, 120)
#: The watch page shows a burst of stored plies one every WATCH_PACE_MS (0: as they come), skipping a long backlog.
WATCH_PACE_MS = env_int("WATCH_PACE_MS", 350, 0, 5000)
#: Leavers (games.matches.leavers): how long (s) a person may be away on their turn before the other people at the
#: table may end the wait (a ladder's own leaver_wait_seconds wins), and the house strategy that then plays their
#: seat in a casual match (a rated one is forfeited).
LEAVER_WAIT_SECONDS = env_int("LEAVER_WAIT_SECONDS", 60, 5, 86400)
LEAVER_STAND_IN = env_str("LEAVER_STAND_IN", "heuristic")
if LEAVER_STAND_IN not in _strategies:
    raise ImproperlyConfigured(f"LEAVER_STAND_IN={LEAVER_STAND_IN!r}: name a house strategy ({', '.join(_strategies)})")
#: A ladder entry is "provisional" until it has played this many rated matches: marked so on the leaderboard and
#: listed below the established entries (``tournaments.selectors.ladder_leaderboard``), so a newcomer's lucky start
#: never ranks it above an entry whose rating has settled. 0: nobody is provisional.
LADDER_PROVISIONAL_MATCHES = env_int("LADDER_PROVISIONAL_MATCHES", 10, 0, 1000)

#: Engine states kept per process (games.state_cache), one per match: a seat view, a move or a worker's slice
#: brings the match's cached state up to date with the plies stored since instead of replaying its whole log.
#: 0 turns the cache off.
MATCH_STATE_CACHE_SIZE = env_int("MATCH_STATE_CACHE_SIZE", 512, 0, 1_000_000)
#: Consecutive house-strategy plies a worker stores in one transaction (games.services._Plies): at most this many,
#: or as many as it plays in MATCH_BATCH_MS ms. 1 stores every ply on its own.
MATCH_BATCH_PLIES = env_int("MATCH_BATCH_PLIES", 32, 1, 10_000)
MATCH_BATCH_MS = env_int("MATCH_BATCH_MS", 25, 0, 10_000)

#: The Ed25519 key that signs every exported match record: 64 hex digits (its 32-byte private seed), e.g. from
#: `python -c "import secrets; print(secrets.token_hex(32))"`. Unset: one is made on first use and kept in
#: RECORD_SIGNING_KEY_FILE (zero-setup and development; a deployment sets the variable, from its secret store).
RECORD_SIGNING_KEY = env_str("RECORD_SIGNING_KEY", "").strip().lower()
if RECORD_SIGNING_KEY and not (len(RECORD_SIGNING_KEY) == 64 and all(c in "0123456789abcdef" for c in RECORD_SIGNING_KEY)):
    raise ImproperlyConfigured("RECORD_SIGNING_KEY is 64 hex digits (an Ed25519 private seed of 32 bytes), e.g. from "
                               "python -c \"import secrets; print(secrets.token_hex(32))\"")
RECORD_SIGNING_KEY_FILE = Path(env_str("RECORD_SIGNING_KEY_FILE", str(VAR_DIR / "record-signing.key")))
#: Failed matches in a row that suspend a bot: a match it forfeited, or faulted on at least
#: BOT_FAILED_MATCH_FAULT_SHARE of its turns in.
BOT_SUSPEND_AFTER_FAILED_MATCHES = env_int("BOT_SUSPEND_AFTER_FAILED_MATCHES", 3, 1, 100)
#: The share of its turns (0 < share <= 1) a bot must fault on for a match to count as failed.
BOT_FAILED_MATCH_FAULT_SHARE = env_float("BOT_FAILED_MATCH_FAULT_SHARE", 0.25, 0.01, 1.0)
#: The cool-off (minutes) of a bot's second suspension; it doubles with each later one. The first has none.
BOT_SUSPENSION_COOLOFF_MINUTES = env_int("BOT_SUSPENSION_COOLOFF_MINUTES", 60, 0, 525600)
if "BOT_SUSPEND_AFTER_FORFEITS" in os.environ:
    raise ImproperlyConfigured("BOT_SUSPEND_AFTER_FORFEITS is now BOT_SUSPEND_AFTER_FAILED_MATCHES (a failed match is "
                               "a forfeit or a match with faults on most of the bot's turns): rename it")
BOTS_ALLOW_HTTP = env_bool("BOTS_ALLOW_HTTP", True)  # plain http endpoints (https is always allowed)
BOTS_ALLOW_LOOPBACK = env_bool("BOTS_ALLOW_LOOPBACK", DEBUG)  # 127.0.0.1/::1 endpoints: development and demo

# ---- People: guests, casual matches, limits, failed logins, passwords --------------------------------------------

#: A guest's move clock (seconds). A guest match waiting this long for the guest is abandoned: housekeeping ends it
#: (aborted, unrated) instead of playing fallbacks. Also how long a closed tab can be reopened mid-turn.
GUEST_MOVE_SECONDS = env_int("GUEST_MOVE_SECONDS", 300, 10, 86400)
#: Running guest matches at once per browser (guest session) and per client address (sitekit.limits.client_address).
GUEST_RUNNING_PER_BROWSER = env_int("GUEST_RUNNING_PER_BROWSER", 2, 1, 1000)
GUEST_RUNNING_PER_ADDRESS = env_int("GUEST_RUNNING_PER_ADDRESS", 6, 1, 100000)
#: New guest matches per client address (DRF rate syntax, counted in the shared cache like the other limits).
GUEST_MATCH_RATE = env_rate("GUEST_MATCH_RATE", "30/hour")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["guest_match"] = GUEST_MATCH_RATE
#: A logged-in person's casual (unrated) matches (games.people.casual): running at once, and new ones per account (the
#: home page's Deal, POST /api/matches/casual/, "Play this deal").
CASUAL_RUNNING_PER_PERSON = env_int("CASUAL_RUNNING_PER_PERSON", 3, 1, 1000)
CASUAL_MATCH_RATE = env_rate("CASUAL_MATCH_RATE", "60/hour")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["casual_match"] = CASUAL_MATCH_RATE
#: Analyses of finished matches (games.matches.analysis): asked for per signed-in person (POST
#: /api/matches/<id>/analysis/, the match page's button; each costs a worker seconds of CPU), and whether every
#: finished match with a person seated is analysed without being asked.
ANALYSIS_RATE = env_rate("ANALYSIS_RATE", "20/hour")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["analysis_request"] = ANALYSIS_RATE
#: Tries of one delivery to a bot owner's webhook before it is turned off (bots_api.webhooks).
BOT_WEBHOOK_ATTEMPTS = env_int("BOT_WEBHOOK_ATTEMPTS", 3, 1, 10)
#: Reports on players a signed-in person may make (games.people.fairplay, POST /api/reports/).
REPORT_RATE = env_rate("REPORT_RATE", "10/day")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["report"] = REPORT_RATE
#: Ladder seasons (tournaments.seasons): at a season's end every rating's sigma moves this share of the way back to
#: the starting sigma (0: kept as it is, 1: back to a newcomer's uncertainty); mu is kept.
SEASON_SOFTEN = env_float("SEASON_SOFTEN", 0.5, 0.0, 1.0)
#: The demo ladders' season length (minutes; demo_setup): short, so a newcomer sees a season end on `make run`.
DEMO_SEASON_MINUTES = env_int("DEMO_SEASON_MINUTES", 20, 1, 527040)
#: Analyses of records opened in the replay viewer (games.local_replay, /replay/open/), per address: as ANALYSIS_RATE.
RECORD_ANALYSIS_RATE = env_rate("RECORD_ANALYSIS_RATE", "10/hour")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["record_analysis"] = RECORD_ANALYSIS_RATE
ANALYSE_PEOPLES_MATCHES = env_bool("ANALYSE_PEOPLES_MATCHES", True)
#: Determinized deals a decision in an analysis: the expert's own (eights_engine.search.EXPERT_SAMPLES), so the action
#: it prefers is the one it would play; fewer are quicker and noisier (the tests use a few).
ANALYSIS_SAMPLES = env_int("ANALYSIS_SAMPLES", _expert_samples, 1, 100_000)
#: Finished or aborted guest matches (and guest players left without a match) are deleted this long after.
GUEST_KEEP_HOURS = env_int("GUEST_KEEP_HOURS", 72, 1, 24 * 3650)
#: How often (seconds) guest housekeeping runs: Celery beat with a broker, the ladder loop without one.
GUEST_HOUSEKEEPING_SECONDS = env_int("GUEST_HOUSEKEEPING_SECONDS", 60, 5, 86400)
#: The house strategies a guest plays against, in seat order (a one-on-one table takes the first): ones a beginner
#: beats sometimes. The default and the figures behind it: eights_engine.tactics.GUEST_OPPONENTS.
GUEST_OPPONENTS = env_list("GUEST_OPPONENTS", list(_guest_opponents_default))
if len(GUEST_OPPONENTS) < 2:
    raise ImproperlyConfigured(f"GUEST_OPPONENTS={','.join(GUEST_OPPONENTS)!r}: name at least two house strategies "
                               "(a three-seat guest table seats two), e.g. eager,greedy")

#: Tables (tables.services): new tables per client address (DRF rate syntax), tables one player may have waiting
#: for players at once, and how long (minutes) a table waits before it is cancelled.
TABLE_CREATE_RATE = env_rate("TABLE_CREATE_RATE", "30/hour")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["table_create"] = TABLE_CREATE_RATE
TABLES_WAITING_PER_PLAYER = env_int("TABLES_WAITING_PER_PLAYER", 3, 1, 100)
TABLE_WAIT_MINUTES = env_int("TABLE_WAIT_MINUTES", 60, 1, 7 * 24 * 60)
#: How long (minutes) a challenge waits for its answer (tables.services.challenge_create).
CHALLENGE_MINUTES = env_int("CHALLENGE_MINUTES", 5, 1, 24 * 60)

# Kept in one block: CACHES, REST_FRAMEWORK["NUM_PROXIES"], django-axes (app, middleware, backend, AXES_*).

#: The cache every process shares (throttle counts live there; config.stores.caches): CACHE_URL, a Redis URL, "db"
#: or "file"; default: the broker when it is Redis, else "db" with DATABASE_URL, else "file".
_BROKER = env_str("CELERY_BROKER_URL", "")
CACHE_URL = stores.cache_url(broker_url=_BROKER, database_url=DATABASE_URL)
CACHES = stores.caches(CACHE_URL, VAR_DIR)

#: How many reverse proxies in front of the app append to X-Forwarded-For. 0 (the default): the header is ignored
#: and the connection's address (REMOTE_ADDR) is the client, so a forged header buys no new limits. With N, the
#: N-th address from the right is the client. One rule for every limit (sitekit.limits.client_address; an IPv6
#: address counts as its /64).
NUM_PROXIES = env_int("NUM_PROXIES", 0, 0, 10)
REST_FRAMEWORK["NUM_PROXIES"] = NUM_PROXIES

# Failed logins (django-axes): the login page, the admin login and POST /api/auth/token/ all go through
# authenticate(). LOGIN_FAILURE_LIMIT failures against one account (from any address) or from one address (against
# any accounts) within LOGIN_COOLOFF_SECONDS lock that account or address until the cool-off has passed since the
# failures; a locked login is refused even with the right password (429, Retry-After). A successful login forgets
# the failures against that account (games.people.accounts.LoginAttemptHandler).
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # turns a locked page login into the 429 page
# last: 400 for NUL in the path, query, cookies or body, before any view or query sees it (answers keep the CSP)
MIDDLEWARE += ["config.api.RefuseNulMiddleware"]
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, 1, 10000)
AXES_COOLOFF_TIME = timedelta(seconds=env_int("LOGIN_COOLOFF_SECONDS", 900, 1, 30 * 86400))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each on its own: per account, per address
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # "try again in N s" holds: refused tries do not extend it
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "games.people.accounts.LoginAttemptHandler"
AXES_CLIENT_IP_CALLABLE = "sitekit.limits.client_address"
AXES_LOCKOUT_CALLABLE = "games.people.accounts.login_locked_response"
AXES_DISABLE_ACCESS_LOG = True  # failures only: no table row per successful login
AXES_VERBOSE = False

# Django's four validators, for the sign-up page and POST /api/accounts/ alike (games.people.accounts.SignupForm): at least
# 8 characters, not like the user name, not a common password, not all digits.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# ---- Bots: the protocol's numbers, trials, the turn log (docs/BOT_PROTOCOL.md, docs/TRIALS.md) -------------------

BOT_TURN_TIMEOUT_MS = env_int("BOT_TURN_TIMEOUT_MS", 1000, 50, 60000)  # per turn, default of every ladder
BOT_TIME_BANK_MS = env_int("BOT_TIME_BANK_MS", 5000, 0, 600000)  # per bot seat and match: absorbs slow turns
BOT_MAX_CONSECUTIVE_FAULTS = env_int("BOT_MAX_CONSECUTIVE_FAULTS", 3, 1, 100)  # then the match is forfeited

#: matches in one trial (a duplicate trial's rotations count one each)
TRIAL_MAX_MATCHES = env_int("TRIAL_MAX_MATCHES", 100, 1, 10000)
#: trials of one owner with a match still running; a new one beyond it answers 429
TRIAL_RUNNING_PER_OWNER = env_int("TRIAL_RUNNING_PER_OWNER", 2, 1, 1000)
#: trial matches one owner may start per 24 hours (counted from the trials created in the last 24 h)
TRIAL_MATCHES_PER_DAY = env_int("TRIAL_MATCHES_PER_DAY", 500, 1, 1000000)
#: matches of one trial played at once (the others wait, running, behind them: Match.after)
TRIAL_PARALLEL_MATCHES = env_int("TRIAL_PARALLEL_MATCHES", 2, 1, 100)

#: Days a bot's logged turns are kept; older ones are deleted by the hourly housekeeping (bots_api.tasks.prune_turn_logs,
#: or `manage.py prune_turn_logs`). Owners download theirs (NDJSON) before then.
TURN_LOG_DAYS = env_int("TURN_LOG_DAYS", 30, 1, 3650)
#: Bytes of a bot's reply kept in its turn log (the rest is cut; the full size is stored): replies may be 64 KiB.
TURN_LOG_REPLY_MAX_BYTES = env_int("TURN_LOG_REPLY_MAX_BYTES", 4096, 256, 65536)

# ---- Live: watching matches, event streams (docs/LIVE.md) --------------------------------------------------------

#: Redis for the live events' wake-ups (pub/sub, one message per committed store): LIVE_REDIS_URL, else the cache's
#: or the broker's Redis; empty (zero-setup): every open stream polls its match's ply count instead.
LIVE_REDIS_URL = env_str("LIVE_REDIS_URL", "") or next(
    (url for url in (CACHE_URL, _BROKER) if url.startswith(("redis://", "rediss://"))), "")
LIVE_POLL_SECONDS = env_float("LIVE_POLL_SECONDS", 0.3, 0.05, 10)  # a stream's poll without Redis (s)
LIVE_RECHECK_SECONDS = env_float("LIVE_RECHECK_SECONDS", 5, 0.1, 60)  # with Redis: a database check anyway (s)
LIVE_KEEPALIVE_SECONDS = env_float("LIVE_KEEPALIVE_SECONDS", 15, 0.1, 300)  # the ": ping" comment (s)
#: a stream closes after this long (s); the client reconnects with Last-Event-ID (so workers can restart, and a
#: balancer can move watchers)
LIVE_STREAM_MAX_SECONDS = env_float("LIVE_STREAM_MAX_SECONDS", 600, 0.1, 86400)
#: public views and event-stream (re)connections per address; a watch page polls the view only without events
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["live_public"] = env_str("LIVE_PUBLIC_RATE", "600/min")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["live_events"] = env_str("LIVE_EVENTS_RATE", "120/min")
ASGI_APPLICATION = "config.asgi.application"

#: "Playing now" and the featured match (tournaments.selectors.matches_playing_now) are kept in
#: the cache this long (s; 0: read on every request)
PLAYING_NOW_CACHE_SECONDS = env_float("PLAYING_NOW_CACHE_SECONDS", 5, 0, 300)

#: Event streams (GET /api/matches/<id>/events/) one client address (sitekit.limits.client_address) may hold open at
#: once, over all matches: past it the stream is refused (429, Retry-After). Each open stream holds a lease in the
#: shared cache (Redis in production) that it renews every third of LIVE_STREAM_LEASE_SECONDS while it lives and
#: gives back when it ends; the slots of a web process that was killed or stopped free themselves within a lease, and
#: a refused attempt extends nothing (games.live.stream_slots.StreamSlot). A watch page or a table opens one stream. 0: no cap.
LIVE_STREAMS_PER_ADDRESS = env_int("LIVE_STREAMS_PER_ADDRESS", 20, 0, 1_000_000)
#: A stream's lease on its slot (s). Renewed on the stream's next write after a third of it, and a stream writes at
#: least every LIVE_KEEPALIVE_SECONDS: so it must exceed a third of itself plus the keep-alive.
LIVE_STREAM_LEASE_SECONDS = env_float("LIVE_STREAM_LEASE_SECONDS", 60, 3, 3600)
if LIVE_STREAM_LEASE_SECONDS * 2 / 3 <= LIVE_KEEPALIVE_SECONDS:
    raise ImproperlyConfigured(f"LIVE_STREAM_LEASE_SECONDS={LIVE_STREAM_LEASE_SECONDS:g} is too short for "
                               f"LIVE_KEEPALIVE_SECONDS={LIVE_KEEPALIVE_SECONDS:g}: a living stream's lease would "
                               "run out between its writes; use more than 1.5 times the keep-alive")

# ---- Operations: /healthz and /metrics (games.operations.metrics; docs/SCALING.md "Watching it") ----------------------------

#: Where each process keeps its Prometheus counters and histograms (prometheus_client's multiprocess mode: one file
#: per process; /metrics sums them). One directory per machine and deployment, emptied when the deployment starts.
METRICS_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics"))
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", METRICS_DIR)
#: A bearer token that may read /metrics from anywhere (Authorization: Bearer <token>); empty: none.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
#: Loopback callers may read /metrics without the token, unless a proxy is configured (NUM_PROXIES > 0: every
#: caller then arrives from the proxy's address) or this is off.
METRICS_ALLOW_LOOPBACK = env_bool("METRICS_ALLOW_LOOPBACK", True)
MIDDLEWARE.insert(0, "games.operations.metrics.RequestMetricsMiddleware")  # first: times the whole request

#: Where a log-in without a "next" lands (Django's default, /accounts/profile/, is no page here).
LOGIN_REDIRECT_URL = "/"

# ---- E-mail (games.notices: notifications for those who opt in) -------------------------------------------

#: The site's address as people reach it (the links in e-mails).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Eights Ladder <noreply@eights.example>")
#: With EMAIL_HOST set, e-mail goes out over SMTP (EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS;
#: docs/RUNNING.md); without it (make run) each e-mail is written as a file into var/mail/ to read.
EMAIL_HOST = env_str("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587, 1, 65535)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, 1, 300)
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = VAR_DIR / "mail"

# ---- Periodic tasks ----------------------------------------------------------------------------------------------

#: Celery beat's one schedule: every periodic task of every app, on the housekeeping queue unless routed above.
CELERY_BEAT_SCHEDULE = {
    "ladder-schedule-matches": {  # start ladder matches (tournaments.services.ladder_schedule_matches)
        "task": "tournaments.tasks.schedule_ladder_matches",
        "schedule": timedelta(seconds=env_int("LADDER_TICK_SECONDS", 10, 1, 86400)),
    },
    "match-watchdog": {  # queue stalled, lost and clock-expired matches again (games.tasks.watchdog)
        "task": "games.tasks.watchdog",
        "schedule": timedelta(seconds=env_int("WATCHDOG_SECONDS", 30, 1, 86400)),
    },
    "tournaments-tick": {  # start tournaments at their start time; advance rounds (behind the match-finished signal)
        "task": "tournaments.tasks.tournaments_tick",
        "schedule": timedelta(seconds=env_int("TOURNAMENT_TICK_SECONDS", 15, 1, 86400)),
    },
    "guest-housekeeping": {  # end abandoned guest matches, delete old ones (games.people.guests.guest_housekeeping)
        "task": "games.tasks.guest_housekeeping",
        "schedule": timedelta(seconds=GUEST_HOUSEKEEPING_SECONDS),
    },
    "fairplay-scan": {  # flag people who play like the expert, bots with arranged-looking results (games.people.fairplay)
        "task": "games.tasks.fairplay_scan",
        "schedule": timedelta(seconds=env_int("FAIRPLAY_SCAN_SECONDS", 3600, 60, 86400 * 7)),
    },
    "turn-log-prune": {  # delete turn logs older than TURN_LOG_DAYS (bots_api.turnlog)
        "task": "bots_api.tasks.prune_turn_logs",
        "schedule": timedelta(seconds=env_int("TURN_LOG_PRUNE_SECONDS", 3600, 60, 86400)),
    },
}
