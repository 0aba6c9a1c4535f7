"""A tab closed while something is being sent to it is a normal end for every consumer: the
server `make run` starts logs no traceback ("Attempt to send on a closed protocol").

daphne refuses a send once the browser's close frame has arrived and until the connection is
gone. Here that moment is held open on purpose: the closing tab reads nothing after the
handshake, so the conversation it opened (far larger than what the two kernels' buffers hold)
still waits in daphne's buffer when its close frame arrives, and the connection cannot end
until that buffer is written. A push to the conversation then meets the closing socket.
"""

import fcntl
import html
import json
import socket
import termios
import urllib.request

import pytest
from websockets.client import ClientProtocol
from websockets.sync.client import connect
from websockets.uri import parse_uri

from tests.support.live_server import LiveClient, LiveServer, wait_for

USERS = {"alice": "alice-password-1"}
MAKE_TOKEN = """
from django.contrib.auth.models import User
from playground.api.tokens import create_token
print(create_token(User.objects.get(username="alice"), "closing tabs")[1])
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("closed-tab"))
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def call_api(server: LiveServer, key: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{server.url}/api/v1{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


class StalledTab:
    """A browser tab that completes the websocket handshake, then reads nothing: what the
    server sends it piles up in the server's buffers. Its socket advertises a small window
    and segment size, so the kernels hold only some kilobytes of it."""

    def __init__(self, url: str, origin: str, cookie: str):
        where = parse_uri(url)
        self.protocol = ClientProtocol(where)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        self.sock.connect((where.host, where.port))
        request = self.protocol.connect()
        request.headers["Origin"] = origin
        request.headers["Cookie"] = cookie
        self.protocol.send_request(request)
        self.sock.sendall(b"".join(self.protocol.data_to_send()))
        response = b""
        while not response.endswith(b"\r\n\r\n"):  # the 101 answer, and not a byte more
            response += self.sock.recv(1)
        self.protocol.receive_data(response)
        assert self.protocol.handshake_exc is None, response

    def unread(self) -> int:
        """Return how many bytes the server sent that wait in this socket, unread."""
        return int.from_bytes(fcntl.ioctl(self.sock, termios.FIONREAD, b"\0" * 4), "little")

    def close_tab(self) -> None:
        """Send the close frame a browser sends as its tab closes (and read nothing still)."""
        self.protocol.send_close(1001)
        self.sock.sendall(b"".join(self.protocol.data_to_send()))


def test_a_push_to_a_tab_that_is_closing_leaves_no_traceback(server):
    key = server.manage("shell", "-c", MAKE_TOKEN).split()[-1]
    conversation = call_api(server, key, "/conversations", {"agentName": "Release bot"})
    messages = f"/conversations/{conversation['id']}/messages"
    for n in range(30):  # some 600 kB: what a tab is sent as it opens the conversation
        call_api(server, key, messages, {"text": f"Report {n}: " + "all green " * 1990})
    alice = LiveClient(server, "alice", USERS["alice"])
    cookie = "; ".join(f"{c.name}={c.value}" for c in alice.cookies)
    url = server.url.replace("http", "ws") + f"/ws/c/{conversation['id']}/"

    closing = StalledTab(url, server.url, cookie)
    # The conversation goes out as one message: once its first bytes arrive, daphne holds the
    # rest, and the connection cannot end before it is written.
    wait_for(lambda: closing.unread() > 0, message="the conversation was never sent")
    closing.close_tab()

    with connect(url, origin=server.url, additional_headers={"Cookie": cookie}) as other:
        for text in ("Deployed to staging.", "Deployed to production."):
            call_api(server, key, messages, {"text": text})
            # Another tab shows it: the closing tab's consumer was handed the same push.
            wait_for(lambda text=text: text in html.unescape(other.recv(timeout=10)))
    closing.sock.close()
    # The closing tab's consumer lived on to its disconnect, which forgets the tab: one that
    # died at the push left it counted as open, and its person was never emailed (notify).
    open_tabs = "SELECT count(*) FROM notify_tab WHERE conversation_id = ?"
    wait_for(
        lambda: server.query(open_tabs, (conversation["id"],)) == [(0,)],
        message=lambda: server.log()[-3000:],
    )
    log = server.log()
    assert "Traceback" not in log and "closed protocol" not in log, log[-3000:]
