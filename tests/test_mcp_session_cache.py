"""The cache of live sessions (`playground.mcp_bridge.sessions`) against the SDK-built test server
over
stdio: a conversation's next call reuses its session; another conversation, a changed
credential, a crashed server, a busy session and the per-server cap each get what they should."""

import asyncio

import pytest
from mcp.shared.exceptions import MCPError

from playground.mcp_bridge import servers
from playground.mcp_bridge.sessions import session
from tests.support.mcp_support import stdio_servers_file

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path):
    def configured(extra: str = "", protocol: str = "auto") -> servers.ServerConfig:
        path = stdio_servers_file(tmp_path, protocol=protocol, extra=extra)
        return servers.load(path)["test"]

    return configured


async def echo(live) -> str:
    result = await live.client.call_tool("echo", {"text": "hi"})
    return result.content[0].text


async def test_a_conversation_reuses_its_session_and_another_gets_its_own(server):
    config = server()
    async with session(config, 1) as first:
        assert await echo(first) == "hi"
    async with session(config, 1) as again:
        assert again is first and again.reused
        assert await echo(again) == "hi"
    async with session(config, 2) as other:
        assert other is not first and not other.reused
    assert not first.stopping


async def test_a_changed_credential_closes_the_old_session(server, monkeypatch):
    config = server()
    monkeypatch.setenv("MCP_TEST_LOG", "/dev/null")
    async with session(config, 1) as before:
        await echo(before)
    monkeypatch.setenv("MCP_TEST_LOG", "/dev/null/changed")  # what the server gets changed
    async with session(config, 1) as after:
        assert after is not before and not after.reused
        await echo(after)
    assert before.stopping


class Unanswered:
    """A person who does not answer before the server dies."""

    async def answer(self, context, params):
        await asyncio.Event().wait()  # never: the server dies first


async def test_a_session_whose_server_crashed_is_not_used_again(server):
    config = server(protocol="legacy")
    async with session(config, 1) as crashed:
        await echo(crashed)
    with pytest.raises(MCPError, match="Connection closed"):
        async with session(config, 1, Unanswered()) as live:
            assert live is crashed
            await live.client.call_tool("crash", {})  # asks, then exits while it waits
    assert crashed.stopping
    async with session(config, 1) as fresh:
        assert fresh is not crashed and await echo(fresh) == "hi"


async def test_a_busy_session_is_not_waited_for(server):
    config = server()
    async with session(config, 1) as busy:
        # Meanwhile the same conversation calls again: it gets a session of its own at once,
        # closed after its call (the conversation's kept session is the busy one).
        async with session(config, 1) as meanwhile:
            assert meanwhile is not busy
            assert await asyncio.wait_for(echo(meanwhile), 30) == "hi"
        assert meanwhile.stopping
    async with session(config, 1) as again:
        assert again is busy


async def test_the_per_server_cap_closes_the_least_recently_used_idle_session(server):
    config = server("max_sessions = 2\n")
    sessions = []
    for conversation in (1, 2, 3):
        async with session(config, conversation) as live:
            sessions.append(live)
    oldest, *kept = sessions
    assert oldest.stopping and not any(live.stopping for live in kept)
