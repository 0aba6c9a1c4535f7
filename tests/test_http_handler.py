"""How the server hands a request to Django (playground/server/http_handler.py): a sync view's
request
runs its middleware in one hop to its thread, static files and the probes are served with no
thread at all, and both still reach the person as before."""

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.db.backends.signals import connection_created

from playground.server.http_handler import get_asgi_application
from tests.support.asgi_helpers import http_scope

pytestmark = pytest.mark.django_db(transaction=True)

APPLICATION = get_asgi_application()


async def get(path: str, headers: list[tuple[bytes, bytes]] = ()) -> tuple[int, bytes]:
    headers = [(b"host", b"testserver"), *headers]
    app = ApplicationCommunicator(APPLICATION, http_scope("GET", path, headers))
    await app.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await app.receive_output(timeout=30)
    body = b""
    while True:
        message = await app.receive_output(timeout=30)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await app.wait(timeout=30)
    return start["status"], body


async def test_a_page_of_a_sync_view_takes_a_handful_of_hops_not_one_per_middleware(hops):
    status, body = await get("/accounts/login/")
    assert status == 200 and b'name="username"' in body
    # The request's start and end signals, the whole middleware chain with its view, the
    # response's close. Through Django's async chain the same page took over twenty.
    assert len(hops) <= 5, hops


def test_a_sync_views_requests_keep_their_database_connection(client, alice):
    client.force_login(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    opened = []
    connection_created.connect(lambda **kwargs: opened.append(1), weak=False, dispatch_uid="t")
    try:
        for _ in range(5):
            status, body = async_to_sync(get)("/inbox/", [(b"cookie", cookie)])
            assert status == 200 and b"Inbox" in body
    finally:
        connection_created.disconnect(dispatch_uid="t")
    # A thread a request, each opening the database (most of a millisecond of every request),
    # opened five. Now the pool's threads keep theirs: the first request's thread may open
    # one, and a request sent as its thread is still on its way back to the pool (the pool
    # then starts another) one more.
    assert len(opened) <= 2, opened


async def test_a_static_file_and_the_probes_take_no_thread(hops):
    status, body = await get("/static/playground.js")
    assert status == 200 and b"htmx" in body
    status, body = await get("/livez")
    assert status == 200 and b'"ok"' in body
    assert not [hop for hop in hops if "get_response" in hop], hops


def test_the_test_client_still_gets_static_files(client):
    response = client.get("/static/playground.js")
    assert response.status_code == 200

    async def read() -> bytes:
        return b"".join([chunk async for chunk in response.streaming_content])

    assert b"htmx" in async_to_sync(read)()
