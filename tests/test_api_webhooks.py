"""Webhooks against a real daphne and a local receiver: signed, and tried again after a 500."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from api.webhooks import signature
from tests.api_support import ASK
from tests.live_server import LiveClient, LiveServer, wait_for

PASSWORD = "alice-password-1"


class Receiver(ThreadingHTTPServer):
    """Answers 500 to the first POST and 200 after; keeps what it was sent."""

    def __init__(self):
        self.received: list[tuple[dict, bytes]] = []
        super().__init__(("127.0.0.1", 0), ReceiverHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"


class ReceiverHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((dict(self.headers), body))
        self.send_response(500 if len(self.server.received) == 1 else 200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def receiver():
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    yield receiver
    receiver.shutdown()


@pytest.fixture
def server(tmp_path):
    server = LiveServer(tmp_path, env={"API_WEBHOOK_ALLOW_PRIVATE": "1"})
    server.prepare({"alice": PASSWORD})
    server.start()
    yield server
    server.stop()


def test_a_settled_request_is_posted_signed_and_retried_after_a_500(server, receiver):
    script = (
        "from django.contrib.auth.models import User\n"
        "from api.tokens import create_token, signing_secret\n"
        f"token, key = create_token(User.objects.get(username='alice'), 'hook', {receiver.url!r})\n"
        "print(key, signing_secret(token))\n"
    )
    key, secret = server.manage("shell", "-v0", "-c", script).split()
    api = httpx.Client(base_url=server.url + "/api/v1", headers={"Authorization": f"Bearer {key}"})
    conversation_id = api.post("/conversations", json={"agentName": "Deploy bot"}).json()["id"]
    part_id = api.post(f"/conversations/{conversation_id}/requests", json=ASK).json()["id"]

    person = LiveClient(server, "alice", PASSWORD)
    person.post(f"/parts/{part_id}/settle", {"action": "accept", "answer.env": "staging"})

    wait_for(lambda: len(receiver.received) >= 2, message="the retry never came")
    for headers, body in receiver.received:
        timestamp = headers["Webhook-Timestamp"]
        assert headers["Webhook-Signature"] == signature(secret, timestamp, body)
    delivered = json.loads(receiver.received[-1][1])
    assert delivered == {
        "requestId": part_id,
        "conversationId": conversation_id,
        "state": "submitted",
        "envelope": {"action": "accept", "content": {"env": "staging"}},
    }

    def attempts():
        return server.query("SELECT status_code FROM api_deliveryattempt ORDER BY id")

    wait_for(lambda: len(attempts()) == 2)
    assert attempts() == [(500,), (200,)]
    assert server.query("SELECT status, attempts FROM api_webhookdelivery") == [("delivered", 2)]
