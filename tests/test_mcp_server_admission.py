"""/mcp admits a request as the HTTP API does: the same tokens, and the same rate limit per
token, counted together with the token's HTTP API calls."""

import pytest
from django.contrib.auth.models import User

from playground.api.tokens import revoke
from playground.mcp_server.mount import admit
from tests.support.api_support import ApiClient

pytestmark = pytest.mark.django_db(transaction=True)  # the API reads on its own thread


def test_calls_past_the_apis_rate_limit_are_refused_with_429(settings):
    settings.API_RATE_LIMIT = "3/m"
    api = ApiClient(User.objects.create_user("alice"))
    assert api.get("/conversations/1/requests").status_code == 404  # counted: 1 of 3
    for _ in range(2):
        token, refusal = admit(f"Bearer {api.key}")
        assert token == api.token and refusal is None
    token, refusal = admit(f"Bearer {api.key}")
    assert token is None and refusal.status_code == 429
    assert int(refusal["Retry-After"]) > 0
    assert api.get("/conversations/1/requests").status_code == 429  # the API's budget is spent


def test_a_revoked_or_missing_token_is_refused_with_401():
    api = ApiClient(User.objects.create_user("alice"))
    revoke(api.token)
    for authorization in (f"Bearer {api.key}", "", "Basic abc", "Bearer "):
        token, refusal = admit(authorization)
        assert token is None and refusal.status_code == 401
        assert refusal["WWW-Authenticate"].startswith("Bearer")
