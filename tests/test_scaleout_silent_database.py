"""A PostgreSQL that stops answering: a request gets the 503 page within seconds instead of
hanging, and `/healthz` says why without leaving a blocked thread behind per probe.

Two silences. Lost packets: the server runs in a network namespace of the test's own,
reaching PostgreSQL over a veth pair through the fault tests' pass-through, and a firewall
rule inside that namespace drops every packet to and from the pass-through (TCP gives up on
the connection). A proxy that holds the connection silent, like a hung pgbouncer: the kernel
acknowledges every byte, so no TCP limit ever fires and only the server's own deadline on a
request's database work ends the wait.
"""

import asyncio
import shutil
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from tests.support.live_server import LiveServer, free_port, wait_for
from tests.test_scaleout import (
    USERNAME,
    Person,
    PostgresDatabase,
    prepare,
    require_services,
    scaleout_env,
)
from tests.test_scaleout_faults import Cable

PROBE_REASONS = {
    "failed: no answer within 3 s",
    "failed: the previous check is still waiting for an answer",
}


class PrivateNetwork:
    """A network namespace joined to this machine by a veth pair (addresses in 198.18.0.0/15,
    the range set aside for network tests); nothing here touches the machine's own firewall."""

    def __init__(self):
        tag = uuid.uuid4().hex[:8]
        self.name = f"playground-{tag}"
        # A random /30, so that runs side by side get networks of their own.
        prefix = f"198.{18 + int(tag[0], 16) % 2}.{int(tag[1:3], 16)}."
        base = int(tag[3:5], 16) % 64 * 4
        self.host_address, self.address = f"{prefix}{base + 1}", f"{prefix}{base + 2}"
        outside, inside = f"pg{tag[:6]}h", f"pg{tag[:6]}n"
        self._run("ip", "netns", "add", self.name)
        self._run(
            "ip", "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", self.name
        )
        self._run("ip", "addr", "add", f"{self.host_address}/30", "dev", outside)
        self._run("ip", "link", "set", outside, "up")
        self._inside("ip", "addr", "add", f"{self.address}/30", "dev", inside)
        self._inside("ip", "link", "set", inside, "up")
        self._inside("ip", "link", "set", "lo", "up")

    def drop_traffic_with(self, port: int) -> None:
        """Lose every packet to or from `port` on this machine: no answer, no reset."""
        rules = (
            "table inet playground_fault {\n"
            f"  chain incoming {{ type filter hook input priority 0; tcp sport {port} drop; }}\n"
            f"  chain outgoing {{ type filter hook output priority 0; tcp dport {port} drop; }}\n"
            "}\n"
        )
        self._inside("nft", "-f", "-", stdin=rules)

    def restore(self) -> None:
        self._inside("nft", "delete", "table", "inet", "playground_fault")

    def remove(self) -> None:
        self._run("ip", "netns", "del", self.name)  # takes the veth pair with it

    def _inside(self, *command: str, stdin: str | None = None) -> None:
        self._run("ip", "netns", "exec", self.name, *command, stdin=stdin)

    @staticmethod
    def _run(*command: str, stdin: str | None = None) -> None:
        done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}"


@pytest.fixture(scope="module")
def silent(tmp_path_factory):
    require_services()
    for tool, package in (("ip", "iproute2"), ("nft", "nftables")):
        if not shutil.which(tool):
            pytest.fail(f"the silent-database test needs `{tool}`: install {package}")
    database = PostgresDatabase()
    network = cable = server = None
    try:
        network = PrivateNetwork()
        postgres = urlsplit(database.url)
        cable = Cable(postgres.port, host=network.host_address)
        cable.plug()
        through_cable = postgres._replace(
            netloc=f"{postgres.username}@{network.host_address}:{cable.port}"
        )
        server = LiveServer(
            tmp_path_factory.mktemp("silent-database"),
            {"DATABASE_URL": through_cable.geturl(), "ALLOWED_HOSTS": network.address},
            host=network.address,
            netns=network.name,
        )
        prepare(server)
        server.start()
        yield server, network, cable, database
    finally:
        if server is not None:
            server.stop()
        if cable is not None:
            cable.unplug()
        if network is not None:
            network.remove()
        database.drop()


def _timed(request):
    started = time.monotonic()
    response = request()
    return response, time.monotonic() - started


def _timed_probe(person: Person):
    started = time.monotonic()
    probe = person.client.get("/healthz")
    return started, time.monotonic(), probe


def test_a_silent_database_gives_the_503_page_and_healthz_says_why(silent):
    server, network, cable, database = silent
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")

    network.drop_traffic_with(cable.port)
    try:
        page, waited = _timed(lambda: person.client.get(f"/c/{conversation}/"))
        assert page.status_code == 503
        assert waited < 15, waited  # "about 10 s", with a margin for a loaded machine
        assert "We can't reach the database right now" in page.text
        sent = person.post(server, f"/c/{conversation}/send", {"text": "Lost in the silence"})
        assert sent.status_code == 503

        # Probes arrive faster than a silent database answers. One check at a time waits for
        # it (holding one thread and one pool connection); the others say so at once instead
        # of each leaving a thread and a pool connection blocked behind them.
        for _ in range(2):
            with ThreadPoolExecutor(max_workers=20) as pool:
                timed = list(pool.map(lambda _: _timed_probe(person), range(20)))
            probes = [probe for _, _, probe in timed]
            reasons = [probe.json()["checks"]["database"] for probe in probes]
            assert {probe.status_code for probe in probes} == {503}
            assert set(reasons) <= PROBE_REASONS
            # A probe that comes after a check gave up starts the next check, which waits its
            # 3 s too: on a loaded machine the 20 probes spread over more than 3 s, and two
            # waited, one after the other (issue 35's loaded run). Checks one at a time take
            # 3 s each end to end; checks side by side would fit in less.
            waited = [
                (started, ended)
                for (started, ended, _), reason in zip(timed, reasons, strict=True)
                if reason == "failed: no answer within 3 s"
            ]
            if len(waited) > 1:
                span = max(ended for _, ended in waited) - min(started for started, _ in waited)
                assert span >= 3 * len(waited) - 0.1, (len(waited), span)
            assert all(network.host_address not in probe.text for probe in probes)
    finally:
        network.restore()

    wait_for(
        lambda: person.client.get("/healthz").status_code == 200,
        timeout=30,
        message="the server did not recover when the database answered again",
    )
    assert person.client.get(f"/c/{conversation}/").status_code == 200
    assert (
        database.query(
            "SELECT text FROM playground_turn WHERE conversation_id = %s", (conversation,)
        )
        == []
    )


class SilentProxy:
    """A TCP proxy in front of PostgreSQL that can fall silent, like a hung pgbouncer: it keeps
    every connection open and takes in what either side sends (the kernel acknowledges it), but
    passes nothing on until it speaks again; then it passes on what it held."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()
        self._server = self._call(self._listen())

    def silence(self) -> None:
        self._call(self._set(speaking=False))

    def speak(self) -> None:
        self._call(self._set(speaking=True))

    def close(self) -> None:
        self._server.close()
        self._loop.call_soon_threadsafe(self._loop.stop)

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _listen(self) -> asyncio.Server:
        self._speaking = asyncio.Event()
        self._speaking.set()
        return await asyncio.start_server(self._connect, "127.0.0.1", self.port)

    async def _set(self, *, speaking: bool) -> None:
        (self._speaking.set if speaking else self._speaking.clear)()

    async def _connect(self, client_reader, client_writer) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(
            "127.0.0.1", self.target_port
        )
        await asyncio.gather(
            self._pump(client_reader, upstream_writer),
            self._pump(upstream_reader, client_writer),
        )

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self._speaking.wait()
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


@pytest.fixture(scope="module")
def held_silent(tmp_path_factory):
    """A scale-out web process whose DATABASE_URL points at the proxy, and an API token."""
    require_services()
    database = PostgresDatabase()
    workdir = tmp_path_factory.mktemp("silent-proxy")
    proxy = SilentProxy(urlsplit(database.url).port)
    postgres = urlsplit(database.url)
    through_proxy = postgres._replace(netloc=f"{postgres.username}@127.0.0.1:{proxy.port}")
    server = LiveServer(
        workdir, {**scaleout_env(database, workdir), "DATABASE_URL": through_proxy.geturl()}
    )
    try:
        prepare(server)
        token = server.manage(
            "shell",
            "--no-imports",
            "-c",
            "from django.contrib.auth.models import User; "
            "from playground.api.tokens import create_token; "
            f"print(create_token(User.objects.get(username={USERNAME!r}), 'release bot')[1])",
        ).strip()
        server.start()
        yield server, proxy, token
    finally:
        server.stop()
        proxy.close()
        database.drop()


def _open_tab(person: Person, server: LiveServer, conversation: int) -> None:
    """Open the conversation's websocket, whose access check queries the database on asgiref's
    one shared thread, the thread the API's calls hop through too."""
    cookie = "; ".join(f"{name}={value}" for name, value in person.client.cookies.items())
    url = server.url.replace("http", "ws") + f"/ws/c/{conversation}/"
    try:
        with connect(url, origin=server.url, additional_headers={"Cookie": cookie}) as tab:
            tab.recv(timeout=30)
    except (OSError, InvalidHandshake, ConnectionClosed):
        pass  # refused or closed while the database is silent: the requests are the test


def test_a_proxy_holding_the_connection_silent_gets_503_within_seconds_and_recovers(held_silent):
    server, proxy, token = held_silent
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")
    agent = httpx.Client(
        base_url=f"{server.url}/api/v1", headers={"Authorization": f"Bearer {token}"}, timeout=60
    )
    opened = agent.post("/conversations", json={"agentName": "Release bot"})
    assert opened.status_code == 201, opened.text
    requests_of = f"/conversations/{opened.json()['id']}/requests"
    page, call, probe = (
        lambda: person.client.get(f"/c/{conversation}/", timeout=60),
        lambda: agent.get(requests_of),
        lambda: person.client.get("/healthz", timeout=60),
    )

    proxy.silence()
    try:
        # Twice, all at once and as a tab opens: the requests after the first ones are not
        # held up behind connections or threads that the first ones left waiting.
        for _ in range(2):
            with ThreadPoolExecutor(max_workers=4) as pool:
                pool.submit(_open_tab, person, server, conversation)
                (shown, shown_in), (answered, answered_in), (probed, probed_in) = pool.map(
                    _timed, (page, call, probe)
                )
            # docs/operations.md promises "about 10 s"; the margin is for a loaded 2-core machine.
            assert shown.status_code == 503 and shown_in < 15, (shown.status_code, shown_in)
            assert "We can't reach the database right now" in shown.text
            assert answered.status_code == 503 and answered_in < 15, (answered.text, answered_in)
            assert answered.headers["Content-Type"] == "application/problem+json"
            assert "We can't reach the database right now" in answered.json()["detail"]
            assert probed.status_code == 503 and probed_in < 15, (probed.text, probed_in)
    finally:
        proxy.speak()

    wait_for(
        lambda: person.client.get("/healthz").status_code == 200,
        timeout=30,
        message="the server did not recover when the database answered again",
    )
    assert page().status_code == 200
    assert call().status_code == 200
