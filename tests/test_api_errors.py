"""Bad input to the API: a JSON problem body with the fields named, and nothing half-created."""

from datetime import timedelta
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import OperationalError, ProgrammingError
from django.db.backends.utils import CursorWrapper
from django.test import Client
from django.utils import timezone

from elicitation.models import Part
from playground.api.models import IdempotencyKey
from playground.api.tokens import revoke
from playground.runs.models import Conversation, Turn
from tests.support.api_support import ASK, ApiClient

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(alice) -> ApiClient:
    return ApiClient(alice)


def assert_problem(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert {"type", "title", "status", "detail", "errors"} <= problem.keys()
    return problem


def test_no_token_or_a_wrong_one_is_401():
    assert_problem(Client().get("/api/v1/requests/1"), 401)
    wrong = Client(headers={"Authorization": "Bearer epg_not-a-token"})
    assert_problem(wrong.post("/api/v1/conversations", {"agentName": "x"}), 401)


def test_a_revoked_token_is_401(api):
    revoke(api.token)
    assert_problem(api.post("/conversations", {"agentName": "Deploy bot"}), 401)


def test_another_persons_conversation_and_request_are_404(api, bob):
    conversation_id = api.open_conversation()
    part_id = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    stranger = ApiClient(bob)
    assert_problem(stranger.post(f"/conversations/{conversation_id}/requests", ASK), 404)
    assert_problem(stranger.get(f"/conversations/{conversation_id}/messages"), 404)
    assert_problem(stranger.get(f"/requests/{part_id}", wait=5), 404)
    assert_problem(stranger.post(f"/requests/{part_id}/cancel"), 404)
    assert Part.objects.get(pk=part_id).state == Part.State.PENDING


def test_wrong_types_are_422_naming_each_field(api):
    conversation_id = api.open_conversation()
    body = {"message": 3, "allowedActions": ["shout"]}
    problem = assert_problem(api.post(f"/conversations/{conversation_id}/requests", body), 422)
    fields = {error["field"] for error in problem["errors"]}
    assert {"message", "requestedSchema", "allowedActions.0"} <= fields
    assert not Part.objects.exists()


def test_malformed_json_is_400(api):
    response = api.client.post("/api/v1/conversations", "{oops", content_type="application/json")
    assert_problem(response, 400)
    assert not Conversation.objects.exists()


def test_an_oversize_body_is_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    conversation_id = api.open_conversation()
    body = {**ASK, "message": "x" * 2000}
    assert_problem(api.post(f"/conversations/{conversation_id}/requests", body), 413)
    assert not Part.objects.exists()


def test_a_wait_over_sixty_seconds_is_422(api):
    conversation_id = api.open_conversation()
    part_id = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    problem = assert_problem(api.get(f"/requests/{part_id}", wait=61), 422)
    assert problem["errors"][0]["field"] == "wait"


def test_a_repeated_idempotency_key_returns_the_same_request(api):
    conversation_id = api.open_conversation()
    path = f"/conversations/{conversation_id}/requests"
    first = api.post(path, ASK, **{"Idempotency-Key": "deploy-42"})
    again = api.post(path, ASK, **{"Idempotency-Key": "deploy-42"})
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert Part.objects.count() == 1


def test_a_repeated_idempotency_key_with_another_body_is_409(api):
    conversation_id = api.open_conversation()
    path = f"/conversations/{conversation_id}/requests"
    api.post(path, ASK, **{"Idempotency-Key": "deploy-42"})
    other = {**ASK, "message": "Which region?"}
    problem = assert_problem(api.post(path, other, **{"Idempotency-Key": "deploy-42"}), 409)
    assert "first used with a different body" in problem["detail"]
    assert Part.objects.count() == 1


def test_a_reused_key_in_another_conversation_is_409_and_creates_nothing(api):
    first = api.open_conversation()
    api.post(f"/conversations/{first}/requests", ASK, **{"Idempotency-Key": "deploy-42"})
    second = api.open_conversation()
    reused = api.post(f"/conversations/{second}/requests", ASK, **{"Idempotency-Key": "deploy-42"})
    problem = assert_problem(reused, 409)
    assert problem["detail"] == (
        f"This Idempotency-Key was first used with conversation {first}; "
        "use a new key for each new request."
    )
    assert Part.objects.count() == 1
    assert not Turn.objects.filter(conversation_id=second).exists()


def test_a_reused_key_with_another_body_in_another_conversation_names_both(api):
    first = api.open_conversation()
    api.post(f"/conversations/{first}/requests", ASK, **{"Idempotency-Key": "deploy-42"})
    second = api.open_conversation()
    other = {**ASK, "message": "Which region?"}
    reused = api.post(
        f"/conversations/{second}/requests", other, **{"Idempotency-Key": "deploy-42"}
    )
    detail = assert_problem(reused, 409)["detail"]
    assert f"conversation {first} and a different body" in detail


def test_idempotency_keys_are_kept_for_24_hours(api):
    conversation_id = api.open_conversation()
    path = f"/conversations/{conversation_id}/requests"
    api.post(path, ASK, **{"Idempotency-Key": "deploy-42"})
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=25))
    later = api.post(path, {**ASK, "message": "Which region?"}, **{"Idempotency-Key": "deploy-42"})
    assert later.status_code == 201
    assert Part.objects.count() == 2


def test_too_many_calls_from_one_token_are_429_with_retry_after(api, alice, settings):
    cache.clear()
    settings.API_RATE_LIMIT = "3/m"
    for _ in range(3):
        assert api.get("/requests/1").status_code == 404
    refused = api.get("/requests/1")
    assert_problem(refused, 429)
    assert 0 < int(refused["Retry-After"]) <= 60
    # Counted per token: another token of the same person still gets through.
    assert ApiClient(alice, "another").get("/requests/1").status_code == 404


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/nope", "/api/v1/requests/1/nope"])
def test_an_unknown_path_under_the_api_is_a_404_problem(api, path):
    for client in (api.client, Client()):
        problem = assert_problem(client.post(path, {}), 404)
        assert path in problem["detail"]


def test_the_rest_of_the_site_keeps_its_own_404_page():
    response = Client().get("/nope/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_wrong_method_is_405_saying_which_methods_the_path_takes(api):
    problem = assert_problem(api.client.delete("/api/v1/requests/1"), 405)
    assert problem["detail"] == "This path takes GET only."
    refused = api.client.get("/api/v1/conversations")
    assert_problem(refused, 405)
    assert refused["Allow"] == "POST"


def test_an_unexpected_failure_is_a_500_problem_that_tells_nothing_of_its_cause(api):
    conversation_id = api.open_conversation()
    failure = ProgrammingError('column "secret_value" does not exist in /srv/secret/db')
    # The database fails under the endpoint, on whichever thread it runs its queries.
    with mock.patch.object(CursorWrapper, "execute", side_effect=failure):
        response = api.post(f"/conversations/{conversation_id}/requests", ASK)
    problem = assert_problem(response, 500)
    assert problem["detail"] == "Something failed on our side. It is logged; try again in a moment."
    for internal in ("secret", "ProgrammingError", "Traceback", "column"):
        assert internal not in response.content.decode()
    assert not Part.objects.exists()


def test_a_database_that_does_not_answer_is_a_503_problem_saying_so(api):
    conversation_id = api.open_conversation()
    failure = OperationalError("connection to server at 10.0.0.5 failed: timeout for postgres")
    with mock.patch.object(CursorWrapper, "execute", side_effect=failure):
        response = api.post(f"/conversations/{conversation_id}/requests", ASK)
    problem = assert_problem(response, 503)
    assert problem["detail"].startswith("We can't reach the database right now.")
    assert response["Retry-After"] == "10"
    for internal in ("10.0.0.5", "postgres", "OperationalError", "Traceback"):
        assert internal not in response.content.decode()
    assert not Part.objects.exists()
