"""Secret-looking values are removed from what people type; ordinary text is left alone."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elicitation.secrets import REDACTED, is_secret_name, redact_secrets


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        ("my key is sk-proj-abcdefghijklmnopqrstuvwxyz123456", "abcdefghijklmnop"),
        ("API key is sk-live-4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
        ("stripe rk_live_51H8abcdefghijklmnop", "51H8abcdefghijklmnop"),
        ("use ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_"),
        ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_"),
        ("gitlab glpat-abcdefghij0123456789", "glpat-"),
        ("slack bot xoxb-1234567890-abcdefghij", "xoxb-"),
        ("user token xoxp-1234567890-abcdefghij", "xoxp-"),
        ("aws AKIAIOSFODNN7EXAMPLE", "AKIA"),
        ("maps AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIza"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r", "eyJ"),
        ("password: hunter2", "hunter2"),
        ("Password: swordfish", "swordfish"),
        ("the password is hunter2", "hunter2"),
        ("The passphrase was tr0ub4dor&3.", "tr0ub4dor"),
        ("api_key=abc", "abc"),
        ("client secret: whatever", "whatever"),
        ("token: abc123xyz", "abc123xyz"),
        ("the API key is abc123xyz", "abc123xyz"),
        ("password is P@ssw0rd!", "P@ssw0rd"),
        ("token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "9f86d081"),
        ("Authorization: Bearer abc.def123.ghi", "abc.def123"),
        ("https://bot:s3cr3t@example.com/hook", "s3cr3t"),
        ("secret: 'correct horse battery staple'", "horse"),
        ('password = "two words"', "two words"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA",
        ),
    ],
)
def test_it_redacts_secrets(text: str, leak: str) -> None:
    redacted, found = redact_secrets(text)
    assert found
    assert leak not in redacted
    assert REDACTED in redacted


def test_it_keeps_the_words_around_a_secret() -> None:
    text = "Deploy with token: abc123xyz, then tell #ops.\nThe password is hunter2!"
    assert redact_secrets(text) == (
        "Deploy with token: [redacted], then tell #ops.\nThe password is [redacted]!",
        True,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Email ops@example.com every weekday at 9:15 pm in #support",
        "The key metric is response time; tokens of appreciation are nice",
        "Remind people to reset their password every 90 days",
        "Monkey business at 17:30 in #eng-triage",
        "Keep secrets out of tickets",
        "Key: the staging deploy goes first",
        "Token: create one in the settings page",
        "Secret: nobody knows yet",
        "The secret key: the vault has it",
        "Key: 2024",
        "Key: 2025-12-26 is the deadline, token: https://example.com/tokens",
        "the token is ready",
        "The password is required",
        "See https://example.com/reset-password?next=/home and https://example.com/api-keys",
        "Write to password-reset@example.com or token@example.com",
        "The task-runner and sk-learn are fine; ask Bob about risk-sharing",
        "Forgot password? Use the reset link.",
        "",
    ],
)
def test_it_leaves_ordinary_text_alone(text: str) -> None:
    assert redact_secrets(text) == (text, False)


VOCABULARY = [
    "the",
    "a",
    "deploy",
    "staging",
    "production",
    "key",
    "keys",
    "token",
    "tokens",
    "secret",
    "secrets",
    "password",
    "monkey",
    "skill",
    "ask",
    "risk",
    "task",
    "is",
    "was",
    "metric",
    "review",
    "today",
    "Bob",
    "#ops",
    "ops@example.com",
    "https://example.com/docs?page=2",
    "2025-12-26",
    "9:15",
    "42",
    "3.14",
    "it's",
    "(see",
    "notes)",
]
# "password: x" is a label plain enough to redact any x, so prose never pairs the two.
prose = st.lists(
    st.tuples(
        st.sampled_from(VOCABULARY), st.sampled_from([" ", " ", ", ", ". ", "\n", ": "])
    ).filter(lambda pair: pair != ("password", ": ")),
    max_size=40,
).map(lambda words: "".join(word + gap for word, gap in words))


@settings(max_examples=300, deadline=None)
@given(prose)
def test_ordinary_prose_is_never_redacted(text: str) -> None:
    # Any mix of these words, the secret-sounding ones included, is ordinary text.
    assert redact_secrets(text) == (text, False)


TOKENS = [
    "sk-live-4eC39HqLyjWDarjtT1zdp7dc",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "xoxb-1234567890-abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
]


@settings(max_examples=200, deadline=None)
@given(prose, st.sampled_from(TOKENS), prose)
def test_a_token_is_redacted_wherever_it_sits_in_prose(before: str, token: str, after: str):
    redacted, found = redact_secrets(f"{before} {token} {after}")
    assert found
    assert token not in redacted


@pytest.mark.parametrize(
    "name",
    [
        *("password", "authToken", "client_secret", "API Key", "private_key", "AWS_ACCESS_KEY_ID"),
        *("credit_card_number", "cardNumber", "card_number", "cvv", "CVC", "pin", "PIN code"),
        *("otp", "otpCode"),
    ],
)
def test_it_recognises_names_that_ask_for_secrets(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        *("name", "max_tokens", "secretary", "keyboard_layout", "passport", "tokenizer"),
        *("pinned", "shipping", "spinner", "card_holder", "topic", "option"),
    ],
)
def test_it_keeps_names_that_only_look_like_secrets(name: str) -> None:
    assert not is_secret_name(name)
