"""A PostgreSQL that stops answering: a request gets the 503 page within seconds instead of
hanging, and `/healthz` says why without leaving a blocked thread behind per probe.

Silence needs lost packets: a user-space proxy that stops forwarding still has the kernel
acknowledge what it receives. So the server runs in a network namespace of the test's own,
reaching PostgreSQL over a veth pair through the fault tests' pass-through, and a firewall
rule inside that namespace drops every packet to and from the pass-through.
"""

import shutil
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests.live_server import LiveServer, wait_for
from tests.test_scaleout import Person, PostgresDatabase, prepare, require_services
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
        self._run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside,
                  "netns", self.name)  # fmt: skip
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
        page = person.client.get(f"/c/{conversation}/")
        assert page.status_code == 503
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

    wait_for(lambda: person.client.get("/healthz").status_code == 200, timeout=30,
             message="the server did not recover when the database answered again")  # fmt: skip
    assert person.client.get(f"/c/{conversation}/").status_code == 200
    assert (
        database.query(
            "SELECT text FROM playground_turn WHERE conversation_id = %s", (conversation,)
        )
        == []
    )
