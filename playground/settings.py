"""Settings, read from the environment. Unset variables give the embedded default:
SQLite, the in-memory channel layer and the in-process task runner (one process).

Scale-out sets DATABASE_URL (PostgreSQL), REDIS_URL and TASK_BACKEND=database; see the
README's production section for the whole table.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def envfloat(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


# PLAYGROUND_ENV=production: a real SECRET_KEY, hashed static files from collectstatic,
# secure cookies. `make run` turns DEBUG on; everything else leaves it off.
PRODUCTION = os.environ.get("PLAYGROUND_ENV") == "production"
DEBUG = envbool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and PRODUCTION:
        raise RuntimeError("Set SECRET_KEY in the environment for production.")
    SECRET_KEY = "insecure-local-playground-key-change-me-for-production-use"
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "playground",
    "elicitation",
]

MIDDLEWARE = [
    "playground.health.answer_probes",  # first: probes by IP, over HTTP (see the module)
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "playground.health.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "playground.urls"
ASGI_APPLICATION = "playground.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# DATABASE_URL selects PostgreSQL (postgres://...); unset is SQLite next to manage.py.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=0
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    postgres_options = DATABASES["default"].setdefault("OPTIONS", {})
    # A server that is unreachable, slow or silent fails the request (the 503 page) within
    # about 10 s instead of hanging it: connecting may take 5 s, a statement
    # DATABASE_STATEMENT_TIMEOUT seconds (0: no limit, e.g. for a long migration). On a
    # network that loses every packet TCP gives up on data unacknowledged for 5 s, and
    # keepalives probe a connection waiting on a reply (libpq's settings).
    postgres_options["connect_timeout"] = 5
    statement_timeout = int(envfloat("DATABASE_STATEMENT_TIMEOUT", 8) * 1000)
    postgres_options["options"] = " ".join(
        filter(None, [postgres_options.get("options"), f"-c statement_timeout={statement_timeout}"])
    )
    postgres_options.update(
        keepalives=1, keepalives_idle=5, keepalives_interval=2, keepalives_count=2,
        tcp_user_timeout=5000,
    )  # fmt: skip
    if envbool("DATABASE_POOL", True):
        # daphne runs each request in a fresh thread: without a pool every request (and every
        # agent turn in a worker) would open a new connection, a few ms each.
        postgres_options["pool"] = {
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", 10)),
            "timeout": 5,
        }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the server and the agent runs write without "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
    # A file, not shared-cache memory: tests race real threads against one database.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# REDIS_URL selects the Redis channel layer, needed when several server processes run.
# REDIS_PREFIX keeps several deployments (or test runs) on one Redis apart.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis with a pool that waits for a free connection (see the module).
            "BACKEND": "playground.channel_layer.WaitingRedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # Each process reads its tabs' messages with a blocking pop that returns
                        # after 5 s; a read timeout of 5 s (redis-py's default) races it and
                        # closed idle sockets. 10 s still notices a Redis that stopped answering.
                        "socket_timeout": 10,
                        # A pooled connection idle for 30 s is pinged before use, so one that a
                        # firewall or a Redis restart dropped is replaced, not used to fail.
                        "health_check_interval": 30,
                        # Commands beyond this many at once wait up to 10 s for a connection.
                        "max_connections": 50,
                        "timeout": 10,
                    }
                ],
                "prefix": os.environ.get("REDIS_PREFIX", "asgi"),
                # All the open tabs of one web process share one Redis list: at the default
                # capacity (100) a busy process silently drops pushes (seen in bench/).
                "capacity": 2000,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Where agent turns run. The Turn table is the queue either way: "inprocess" (the default) runs
# them inside the server process, up to EMBEDDED_CONCURRENCY at once; "database" leaves them
# to `manage.py agent_worker` processes.
TASK_BACKEND = os.environ.get("TASK_BACKEND", "inprocess")
if TASK_BACKEND not in ("inprocess", "database"):
    raise ImproperlyConfigured("TASK_BACKEND must be inprocess or database.")
if TASK_BACKEND == "database" and not REDIS_URL:
    # Each process has its own in-memory layer: a worker's pushes would reach no browser.
    raise ImproperlyConfigured("TASK_BACKEND=database needs REDIS_URL so workers can push.")
# Beyond this many running turns, more wait in the database (queued), not in memory.
EMBEDDED_CONCURRENCY = int(os.environ.get("EMBEDDED_CONCURRENCY", 50))

# A running turn writes a heartbeat; one silent for RUN_STALE_AFTER_SECONDS lost its worker
# and is picked up again by the next recovery sweep (every RECOVERY_SWEEP_SECONDS, run by
# each `agent_worker`, or by the embedded server).
RUN_HEARTBEAT_SECONDS = envfloat("RUN_HEARTBEAT_SECONDS", 5)
RUN_STALE_AFTER_SECONDS = envfloat("RUN_STALE_AFTER_SECONDS", 30)
RECOVERY_SWEEP_SECONDS = envfloat("RECOVERY_SWEEP_SECONDS", 10)
if RUN_STALE_AFTER_SECONDS < 3 * RUN_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("RUN_STALE_AFTER_SECONDS must be at least 3 heartbeats.")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one
if PRODUCTION:
    # `manage.py collectstatic` first: hashed names, compressed, cached for a year.
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
else:
    # Without collectstatic (local use and tests) WhiteNoise serves straight from the finders.
    WHITENOISE_USE_FINDERS = True
    WHITENOISE_AUTOREFRESH = DEBUG

SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
if envbool("BEHIND_TLS_PROXY", False):
    # nginx terminates TLS and says so; without this, CSRF's origin check fails on https.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"playground": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}

# Modules with agents of your own, imported at start-up (see README, "Write an agent").
AGENT_MODULES = envlist("AGENT_MODULES", "")
