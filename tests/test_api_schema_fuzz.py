"""Property-based tests of the OpenAPI document (schemathesis): whatever a caller sends, the
API answers without a server error, and every answer matches the document."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from playground.api.tokens import create_token
from tests.support.api_support import ASK, ApiClient

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def key(alice, settings) -> str:
    settings.API_RATE_LIMIT = "100000/m"
    # Something to find: a conversation with a pending request, ids 1 and 1.
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    api.post(f"/conversations/{conversation_id}/requests", ASK)
    return create_token(alice, "fuzzer")[1]


@schema.parametrize()
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_api_answers_every_input_as_documented(case, key):
    if isinstance(case.query, dict) and isinstance(case.query.get("wait"), int):
        case.query["wait"] = min(case.query["wait"], 1)  # long-polls, but briefly
    case.call_and_validate(headers={"Authorization": f"Bearer {key}"})
