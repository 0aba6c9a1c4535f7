"""An answer whose files are larger than its question could take is refused as it arrives, at
the ASGI layer in front of Django (playground/server/upload_limits.py): by its Content-Length
before a
byte of it is read, or, sent without a length, once its bytes pass the limit while the client
is still sending. The refusal says why, beside the form. One within the limit goes on."""

import json

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from elicitation import uploads
from elicitation.contract import size_text
from playground.server.http_handler import get_asgi_application
from playground.server.upload_limits import TOO_LARGE, limit_answer_uploads
from tests.support.asgi_helpers import http_scope
from tests.support.runtime_helpers import pending, send, start

pytestmark = pytest.mark.django_db(transaction=True)

# The HTTP application as playground/asgi.py composes it.
APPLICATION = limit_answer_uploads(get_asgi_application())
BLOCK = b"x" * 1_000_000


@pytest.fixture
def part(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-file-reader")
    send(client, conversation, "go")
    return pending(conversation)


def scope(part_id: int, length: int | None) -> dict:
    headers = [(b"content-type", b"multipart/form-data; boundary=b"), (b"hx-request", b"true")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return http_scope("POST", f"/parts/{part_id}/settle", headers)


async def _exchange(scope: dict, blocks: int, *, last: bool) -> dict:
    """Send `blocks` of the body (the last one ending it if `last`); return the response."""
    app = ApplicationCommunicator(APPLICATION, scope)
    for number in range(blocks):
        more = not (last and number == blocks - 1)
        await app.send_input({"type": "http.request", "body": BLOCK, "more_body": more})
    start = await app.receive_output(timeout=30)
    body = await app.receive_output(timeout=30)
    await app.wait(timeout=30)
    return {"status": start["status"], "headers": dict(start["headers"]), "body": body["body"]}


exchange = async_to_sync(_exchange)


def refusal(response: dict) -> str:
    assert response["status"] == 413
    assert response["headers"][b"hx-reswap"] == b"none"  # the form stays as it was typed
    return json.loads(response["headers"][b"hx-trigger"])["requestRefused"]["message"]


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read(part):
    limit = uploads.body_limit(part.pk)
    # (20 MB: two screenshots of at most 10 MB, the 2 KB log, the form's fields.)
    assert 20_000_000 < limit < 21_000_000
    response = exchange(scope(part.pk, limit + 1), 0, last=False)  # not a byte sent
    assert refusal(response) == TOO_LARGE.format(limit=size_text(limit))
    assert "nothing was sent" in refusal(response)


def test_a_body_without_a_length_is_refused_once_it_passes_the_limit(part):
    blocks = uploads.body_limit(part.pk) // len(BLOCK) + 1
    response = exchange(scope(part.pk, None), blocks, last=False)  # still sending
    assert refusal(response) == TOO_LARGE.format(limit=size_text(uploads.body_limit(part.pk)))
    part.refresh_from_db()
    assert part.is_pending and not part.files.exists()


def test_an_answer_within_the_limit_reaches_django(part):
    # (Django answers it: this request has no session and no CSRF token.)
    response = exchange(scope(part.pk, len(BLOCK)), 1, last=True)
    assert response["status"] != 413
