"""The playground's settings for the tests' servers, with a fast password hasher first.

A log-in's PBKDF2 costs a third of a CPU-second, and the suite's servers create and log people
in a few hundred times on two cores (Django's advice for tests). A password hashed the usual
way still checks.
"""

from django.conf import global_settings

from playground.settings import *  # noqa: F403

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    *global_settings.PASSWORD_HASHERS,
]
