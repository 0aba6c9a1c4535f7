"""Settings, read from the environment. Unset variables give the embedded default:
SQLite, the in-memory channel layer and the in-process task runner (one process).

Scale-out sets DATABASE_URL (PostgreSQL), REDIS_URL and JOBS_RUN_IN=workers; see
docs/settings.md for every variable, docs/deployment.md for production.
"""

import json
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def envfloat(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


# PLAYGROUND_ENV=production: a real SECRET_KEY (whatever DEBUG says), HTTPS only, hashed
# static files from collectstatic. `make run` turns DEBUG on; everything else leaves it off.
PRODUCTION = os.environ.get("PLAYGROUND_ENV") == "production"
DEBUG = envbool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured(
            "Set SECRET_KEY in the environment: PLAYGROUND_ENV=production never uses the "
            "public local key (generate one with: python -c 'import secrets; "
            "print(secrets.token_urlsafe(50))')."
        )
    SECRET_KEY = "insecure-local-playground-key-change-me-for-production-use"
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

# Not daphne's app: it imports Twisted into every process (a fifth of a manage.py command's
# start-up) for a `runserver` the playground does not use; `serve` imports daphne itself.
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "servestatic",  # its checks of the static settings
    "channels",
    "django_htmx",
    "axes",
    "ninja",  # its API docs page and assets, served locally (no CDN)
    "playground.runs",
    "playground.chat",
    "playground.server",
    "elicitation",
    "playground.mcp_bridge",
    "playground.api",
    "playground.workbench",
    "playground.llm_agents",
    "playground.agui",
    "playground.connections",
    "playground.notify",
    "playground.inbox",
    "playground.accounts",
    "playground.jobs",
    "playground.mcp_server",
]

MIDDLEWARE = [
    "playground.server.health.answer_probes",  # first: probes by IP, over HTTP (see the module)
    "playground.server.database_deadline.per_request",  # a request's database time, all of it
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "playground.server.http_handler.serve_static",  # ServeStatic's, in either chain
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check reads the form: an unreadable htmx form is refused in place.
    "playground.server.unreadable_requests.refuse_unreadable_htmx_posts",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "playground.accounts.proxy.trusted_proxy_sign_in",  # only with PROXY_USER_HEADER
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "playground.chat.preferences.viewer_zone",  # after htmx: it skips htmx requests
    "playground.server.health.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
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
                "django.template.context_processors.csp",
                "playground.inbox.context_processors.inbox_count",
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
    # keepalives probe a connection waiting on a reply (libpq's settings). None of these
    # reaches a proxy that holds the connection open and silent: the web process cuts a
    # request's database work at DATABASE_REQUEST_SECONDS (playground.server.database_deadline).
    postgres_options["connect_timeout"] = 5
    statement_timeout = int(envfloat("DATABASE_STATEMENT_TIMEOUT", 8) * 1000)
    postgres_options["options"] = " ".join(
        filter(None, [postgres_options.get("options"), f"-c statement_timeout={statement_timeout}"])
    )
    postgres_options.update(
        keepalives=1,
        keepalives_idle=5,
        keepalives_interval=2,
        keepalives_count=2,
        tcp_user_timeout=5000,
    )
    if envbool("DATABASE_POOL", True):
        # daphne runs each request in a fresh thread: without a pool every request (and every
        # agent turn in a worker) would open a new connection, a few ms each.
        postgres_options["pool"] = {
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", 10)),
            "timeout": 5,
        }
# A request's database time in a web process, in all (docs/operations.md).
DATABASE_REQUEST_SECONDS = envfloat("DATABASE_REQUEST_SECONDS", 9)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file needs no pool: each thread keeps its connection (see playground.server.http_handler).
    DATABASES["default"]["CONN_MAX_AGE"] = None
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
REDIS_PREFIX = os.environ.get("REDIS_PREFIX", "asgi")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: a push is one PUBLISH, and Redis sends it to each process whose
            # tabs are in the group. channels-redis's list-based layer takes four round trips
            # per message a process receives, one message at a time, and a busy web process
            # fell behind its tabs (bench/README.md, settle_throughput). Nothing is
            # kept for a tab without a socket: it is sent its whole conversation when it
            # reconnects, and `socket_watch` closes the tabs of a process that lost Redis.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # A Redis that stopped answering fails a command after 10 s.
                        "socket_timeout": 10,
                        # A connection idle for 30 s is pinged before use, so one that a
                        # firewall or a Redis restart dropped is replaced, not used to fail.
                        "health_check_interval": 30,
                    }
                ],
                "prefix": REDIS_PREFIX,
            },
        }
    }
else:
    # In this process; a push costs the same however many tabs are open (see the module).
    CHANNEL_LAYERS = {"default": {"BACKEND": "playground.server.memory_layer.LocalChannelLayer"}}

# The cache counts API calls per token for rate limiting: with REDIS_URL every process shares
# one count, otherwise each process counts its own (fine for the one embedded process).
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # The one process reads sessions from its memory (kept in the database too), not with a
    # query per request; a logout ends one there at once. With Redis they stay in the database
    # alone: a Redis outage must not fail every request (tests/test_scaleout_faults.py).
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# The HTTP API (docs/api-concepts.md): calls per minute per token, and whether webhooks
# may call private and loopback addresses (refused by default; tests use a local receiver).
API_RATE_LIMIT = os.environ.get("API_RATE_LIMIT", "120/m")
API_WEBHOOK_ALLOW_PRIVATE = envbool("API_WEBHOOK_ALLOW_PRIVATE", False)
# Seconds a webhook delivery waits before each retry; it gives up after the last one. Tests
# shorten them.
API_WEBHOOK_BACKOFF = [float(s) for s in envlist("API_WEBHOOK_BACKOFF", "1,5,30,120,600")]

# Seconds a conversation websocket may be quiet before the server pings it (daphne's default:
# 20). Each ping and its pong cost the web process CPU per open tab (bench/README.md,
# idle_sockets). With no router in between (`make run`) or behind deploy/nginx.conf (a quiet
# websocket may stay a day) pings only find dead peers: 300 s. Behind a platform router (Heroku's,
# AWS's), which closes a connection quiet for 55-60 s, set 40 (docs/operations.md).
WEBSOCKET_PING_SECONDS = int(os.environ.get("WEBSOCKET_PING_SECONDS", 300))

# Where the jobs run (turns, schedule slots, notices, webhooks: playground/jobs): "server" (the
# default) runs them inside the server process; "workers" leaves them to `manage.py worker`
# processes, and web processes run none.
if "TASK_BACKEND" in os.environ:
    raise ImproperlyConfigured(
        "TASK_BACKEND is now JOBS_RUN_IN: JOBS_RUN_IN=workers (was database) or server "
        "(was inprocess)."
    )
JOBS_RUN_IN = os.environ.get("JOBS_RUN_IN", "server")
if JOBS_RUN_IN not in ("server", "workers"):
    raise ImproperlyConfigured("JOBS_RUN_IN must be server or workers.")
if JOBS_RUN_IN == "workers" and not REDIS_URL:
    # Each process has its own in-memory layer: a worker's pushes would reach no browser.
    raise ImproperlyConfigured("JOBS_RUN_IN=workers needs REDIS_URL so workers can push.")
# Beyond this many running turns, more wait in the database (queued), not in memory.
EMBEDDED_CONCURRENCY = int(os.environ.get("EMBEDDED_CONCURRENCY", 50))

# A running turn writes a heartbeat; one silent for RUN_STALE_AFTER_SECONDS lost its worker
# and is picked up again by the next recovery sweep (every RECOVERY_SWEEP_SECONDS, run by
# the turns job of each `worker`, or of the embedded server).
RUN_HEARTBEAT_SECONDS = envfloat("RUN_HEARTBEAT_SECONDS", 5)
RUN_STALE_AFTER_SECONDS = envfloat("RUN_STALE_AFTER_SECONDS", 30)
RECOVERY_SWEEP_SECONDS = envfloat("RECOVERY_SWEEP_SECONDS", 10)
# A scheduled slot found later than this (no runner was up at its time) gets a catch-up run
# that says so (playground/schedules/scheduler.py).
SCHEDULE_LATE_SECONDS = envfloat("SCHEDULE_LATE_SECONDS", 60)
if RUN_STALE_AFTER_SECONDS < 3 * RUN_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("RUN_STALE_AFTER_SECONDS must be at least 3 heartbeats.")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Five wrong passwords for one username lock it for 15 minutes (every process shares the
# counts: django-axes keeps them in the database). `manage.py axes_reset_username` unlocks.
# Sign-on (docs/sign-on.md): LOCAL_LOGIN=off takes no password anywhere, the admin's login too.
LOCAL_LOGIN = envbool("LOCAL_LOGIN", True)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    *(["django.contrib.auth.backends.ModelBackend"] if LOCAL_LOGIN else []),
    "playground.accounts.people.SignOnBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
# By username alone, whatever IP, browser or cookies the guesses come from. Counting per IP as
# well (what axes.W006 asks for) would lock out everyone behind one office NAT or proxy after
# five typos between them.
AXES_LOCKOUT_PARAMETERS = ["username"]
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # count failures; don't keep a row for every login forever
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# OpenID Connect with any provider, found by discovery from OIDC_ISSUER (unset: none). The
# client secret is read from the environment variable OIDC_CLIENT_SECRET_ENV names.
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "")
OIDC_CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "")
OIDC_CLIENT_SECRET_ENV = os.environ.get("OIDC_CLIENT_SECRET_ENV", "OIDC_CLIENT_SECRET")
OIDC_PROVIDER_NAME = os.environ.get("OIDC_PROVIDER_NAME", "")
OIDC_SCOPES = envlist("OIDC_SCOPES", "openid,email,profile")
OIDC_GROUPS_CLAIM = os.environ.get("OIDC_GROUPS_CLAIM", "groups")
# A trusted proxy's headers, believed only from these socket peers (addresses or networks).
PROXY_USER_HEADER = os.environ.get("PROXY_USER_HEADER", "")
PROXY_EMAIL_HEADER = os.environ.get("PROXY_EMAIL_HEADER", "")
PROXY_GROUPS_HEADER = os.environ.get("PROXY_GROUPS_HEADER", "")
PROXY_TRUSTED_ADDRESSES = envlist("PROXY_TRUSTED_ADDRESSES", "")
# Either way: the provider's group that makes reviewers (staff + the reviewer group), the
# groups that may sign in at all (empty: everyone the provider signs in), and whom to ask.
SIGN_ON_REVIEWER_GROUP = os.environ.get("SIGN_ON_REVIEWER_GROUP", "")
SIGN_ON_ALLOWED_GROUPS = envlist("SIGN_ON_ALLOWED_GROUPS", "")
SIGN_ON_CONTACT = os.environ.get("SIGN_ON_CONTACT", "")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# One date-time format, the chat's, with its zone ("2 Dec 2026, 22:00 CET"), in the admin too.
FORMAT_MODULE_PATH = ["playground.formats"]

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # ServeStatic warns about a missing one
if PRODUCTION:
    # `manage.py collectstatic` first: hashed names, compressed, cached for a year.
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "servestatic.storage.CompressedManifestStaticFilesStorage"},
    }
else:
    # Without collectstatic (local use and tests) ServeStatic serves straight from the finders.
    SERVESTATIC_USE_FINDERS = True
    SERVESTATIC_AUTOREFRESH = DEBUG
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
# Files people attach to answers, through Django's storage API under the name "answer_files":
# a folder here (FILES_ROOT), or an S3-compatible bucket (FILES_S3_BUCKET, through
# django-storages). Never served from a public or presigned URL: only the file views (which
# check who asks) read them and send the bytes. Scale-out processes must share the folder or
# the bucket.
FILES_ROOT = Path(os.environ.get("FILES_ROOT", BASE_DIR / "answer-files"))


def answer_files_storage(environ) -> dict:
    """Return the "answer_files" storage the environment asks for: an S3-compatible bucket
    when FILES_S3_BUCKET is set, else the folder FILES_ROOT."""
    bucket = environ.get("FILES_S3_BUCKET", "")
    if not bucket:
        return {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": FILES_ROOT, "base_url": "/no-public-url/"},
        }
    # Credentials come from the standard AWS environment (AWS_ACCESS_KEY_ID and
    # AWS_SECRET_ACCESS_KEY, or an instance role): boto3 reads them, they are never kept here.
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": environ.get("FILES_S3_ENDPOINT_URL") or None,
            "region_name": environ.get("FILES_S3_REGION") or None,
            # Objects are named "<FILES_S3_PREFIX>/<file id>" (a bucket shared with other data).
            "location": environ.get("FILES_S3_PREFIX", ""),
            # No ACL is sent: objects get the bucket's default, private to its owner (a bucket
            # with ACLs disabled, AWS's default, refuses writes that set one). No link to an
            # object is ever made (no presigned query string): the views send the bytes to
            # whoever may fetch them.
            "default_acl": None,
            "querystring_auth": False,
            # Names are unique (the file's id), so no existence check before each write.
            "file_overwrite": True,
            # A download larger than this is spooled to a temporary file, not held in memory.
            "max_memory_size": 8 * 1024 * 1024,
        },
    }


STORAGES["answer_files"] = answer_files_storage(os.environ)
# What one person's attached files may add up to, in bytes (default 500 MB).
FILES_QUOTA_BYTES = int(os.environ.get("FILES_QUOTA_BYTES", 500_000_000))
# Uploads never sent with an answer are removed by the uploads job after this long.
FILES_UNSENT_SECONDS = envfloat("FILES_UNSENT_SECONDS", 24 * 3600)

# Production is HTTPS only: plain HTTP is redirected, browsers are told to stay on HTTPS for a
# year (HSTS), and cookies never travel unencrypted.
SECURE_SSL_REDIRECT = PRODUCTION
SECURE_HSTS_SECONDS = 365 * 24 * 3600 if PRODUCTION else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = PRODUCTION
SECURE_HSTS_PRELOAD = PRODUCTION
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
# Scripts never read the CSRF cookie: htmx sends the token rendered into the page.
CSRF_COOKIE_HTTPONLY = True
if envbool("BEHIND_TLS_PROXY", False):
    # nginx terminates TLS and says so; without this, CSRF's origin check fails on https.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy: scripts and styles only from our own static files (or an inline
# one carrying the request's nonce), pushes over our own websocket, no framing by other sites.
# The same policy everywhere; under DEBUG it only reports, since Django's debug pages use
# inline styles and scripts.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
if OIDC_ISSUER:  # logging out (a form) goes on to the provider's end-session page
    SECURE_CSP["form-action"].append("{0.scheme}://{0.netloc}".format(urlsplit(OIDC_ISSUER)))
if DEBUG:
    SECURE_CSP_REPORT_ONLY, SECURE_CSP = SECURE_CSP, {}
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"playground": {"handlers": ["console"], "level": "INFO", "propagate": False}},
    # Plain lines for every other library too. The root logger must have a handler: the MCP
    # SDK's server otherwise installs rich's, which renders each logged traceback as a boxed
    # page of source on the event loop, seconds of it under load while Redis is down.
    "root": {"handlers": ["console"], "level": "INFO"},
}

# Modules with agents of your own, imported at start-up (see docs/agents.md).
AGENT_MODULES = envlist("AGENT_MODULES", "")

# Model providers for LLM agents (see docs/llm-agents.md). Keys stay in the
# environment: agents store only a provider's name and a model, never a URL or a key.
LLM_PROVIDERS = json.loads(os.environ.get("LLM_PROVIDERS") or "[]")
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
LLM_MODELS = envlist("LLM_MODELS", "")
ANTHROPIC_API_KEY = os.environ.get("ANTHROPIC_API_KEY", "")
ANTHROPIC_MODELS = envlist("ANTHROPIC_MODELS", "claude-sonnet-4-5")
# The onboarding wizard's model ("provider/model", e.g. "default/llama3.2"); empty: the first.
LLM_SETUP_MODEL = os.environ.get("LLM_SETUP_MODEL", "")
LLM_TIMEOUT_SECONDS = envfloat("LLM_TIMEOUT_SECONDS", 60)
# Retries (with backoff, honouring Retry-After) of a request answered 408/409/429/5xx.
LLM_MAX_RETRIES = int(os.environ.get("LLM_MAX_RETRIES", "2"))

# MCP servers the playground may connect to: a TOML file (see playground/mcp_bridge/servers.py and
# docs/servers-files.md). Unset: no MCP servers.
MCP_SERVERS_FILE = os.environ.get("MCP_SERVERS_FILE", "")

# Connections (see connections/ and docs/connections.md): the services people
# can connect (a TOML file beside the MCP servers file) and the vault's keys, comma-separated,
# the first one sealing. `make run` creates a local key in .connections-key.
CONNECTION_SERVICES_FILE = os.environ.get("CONNECTION_SERVICES_FILE", "")
CONNECTIONS_KEYS = envlist("CONNECTIONS_KEY", "")
# OAuth providers (configured or discovered) on private or loopback addresses: off, as for webhooks.
CONNECTIONS_ALLOW_PRIVATE = envbool("CONNECTIONS_ALLOW_PRIVATE", False)

# The newest this many messages of a conversation's wire (its Wire panel) are kept; older ones
# are deleted as new ones are logged (see playground/runs/wire.py).
WIRE_MESSAGES_KEPT = int(os.environ.get("WIRE_MESSAGES_KEPT", "1000"))

# One more server for local use, a command line or an http(s) URL: `make run MCP="..."`.
MCP_COMMAND = os.environ.get("MCP_COMMAND", "")
# AG-UI agents the playground may run: a TOML file (see playground/agui/agents_file.py and
# docs/agui.md). Unset: none. A run fails, saying which, past these limits.
AGUI_AGENTS_FILE = os.environ.get("AGUI_AGENTS_FILE", "")
AGUI_MAX_EVENT_BYTES = int(os.environ.get("AGUI_MAX_EVENT_BYTES", str(1024 * 1024)))
AGUI_MAX_EVENTS = int(os.environ.get("AGUI_MAX_EVENTS", "10000"))
AGUI_RUN_SECONDS = envfloat("AGUI_RUN_SECONDS", 600)
# Notifications (notify/): a person with no tab open on a question is told after
# NOTIFY_AFTER_SECONDS, by email through Django's email framework (EMAIL_* below; `make run`
# prints mails on the console) and in their other open tabs. A burst within
# NOTIFY_BATCH_SECONDS is one email (25: a question is mailed within the grace period + 30 s,
# leaving 5 s to claim and send); a question still waiting REMIND_AFTER seconds after it was
# asked is reminded of, at most once a day. A failed send is tried again after each of
# NOTIFY_BACKOFF's seconds in turn, the last repeating until it goes out.
NOTIFY_AFTER_SECONDS = envfloat("NOTIFY_AFTER_SECONDS", 60)
NOTIFY_BATCH_SECONDS = envfloat("NOTIFY_BATCH_SECONDS", 25)
REMIND_AFTER = envfloat("REMIND_AFTER", 24 * 3600)
NOTIFY_BACKOFF = [float(s) for s in envlist("NOTIFY_BACKOFF", "5,30,120,600")]
TAB_REFRESH_SECONDS = envfloat("TAB_REFRESH_SECONDS", 30)
# Where the links in mails point (the address people open the playground at).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
# Django's MAILERS, from EMAIL_BACKEND and (for SMTP) EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_USE_SSL and EMAIL_TIMEOUT in the environment.
EMAIL_BACKEND_PATH = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
MAILERS = {"default": {"BACKEND": EMAIL_BACKEND_PATH}}
if EMAIL_BACKEND_PATH == "django.core.mail.backends.smtp.EmailBackend":
    MAILERS["default"]["OPTIONS"] = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": int(os.environ.get("EMAIL_PORT", 25)),
        "username": os.environ.get("EMAIL_HOST_USER", ""),
        "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
        "use_tls": envbool("EMAIL_USE_TLS", False),
        "use_ssl": envbool("EMAIL_USE_SSL", False),
        # A silent server fails the send (tried again later) instead of holding it.
        "timeout": envfloat("EMAIL_TIMEOUT", 10),
    }
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "playground@localhost")

# Routing (see docs/inbox.md): besides the groups a conversation's
# owner belongs to and their members, the groups and people anyone's agents may ask.
ROUTING_ALLOWED_GROUPS = envlist("ROUTING_ALLOWED_GROUPS", "")
ROUTING_ALLOWED_USERS = envlist("ROUTING_ALLOWED_USERS", "")
