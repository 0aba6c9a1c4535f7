"""A quiet conversation tab is pinged every WEBSOCKET_PING_SECONDS (routers keep it open), by
the server `make run` starts."""

import logging

import pytest
from websockets.sync.client import connect

from tests.support.live_server import LiveClient, LiveServer, wait_for

USERS = {"alice": "alice-password-1"}


class Frames(logging.Handler):
    """The frames a websocket client logs at debug level ("< PING ...")."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.received: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.received.append(record.getMessage())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("keepalive"), env={"WEBSOCKET_PING_SECONDS": "1"})
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def test_a_quiet_tab_is_pinged_at_the_configured_interval(server):
    alice = LiveClient(server, "alice", *USERS.values())
    [(slug,)] = server.query("SELECT slug FROM playground_agent ORDER BY id LIMIT 1")
    alice.post(f"/agents/{slug}/new", {})
    [(conversation,)] = server.query("SELECT max(id) FROM playground_conversation")
    cookie = "; ".join(f"{c.name}={c.value}" for c in alice.cookies)
    frames = Frames()
    logger = logging.getLogger("tests.keepalive")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(frames)
    url = server.url.replace("http", "ws") + f"/ws/c/{conversation}/"
    with connect(url, origin=server.url, additional_headers={"Cookie": cookie}, logger=logger):
        # daphne's default (20 s) would send nothing this soon.
        wait_for(
            lambda: any(frame.startswith("< PING") for frame in frames.received),
            timeout=10,
            message=f"no ping within 10 s: {frames.received}",
        )
