"""Our reading of an AG-UI stream agrees with an independent conformance validator
(`ag-ui-validate`): every stream the playground accepts (a Pydantic AI agent's, our test
agent's state and interrupts) has no error-level finding, and each stream it rejects as
malformed is flagged by the validator at the same event, for the same fault."""

import asyncio

import pytest
from ag_ui_validate.pytest_plugin import validate_agui

from playground.agui import protocol
from playground.agui.agents_file import AguiAgentConfig
from playground.agui.client import run_once
from tests.support.agui_support import BROKEN_SERVER, PYDANTIC_SERVER, AguiServer


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    directory = tmp_path_factory.mktemp("agui")
    started = {
        "pydantic": AguiServer(PYDANTIC_SERVER, directory / "pydantic.log"),
        "broken": AguiServer(BROKEN_SERVER, directory / "broken.log"),
    }
    yield started
    for server in started.values():
        server.stop()


def run(servers, server: str, path: str) -> dict:
    agent = AguiAgentConfig(name="test", url=servers[server].url(path))
    messages = [protocol.user_message("m1", "paint it")]
    return asyncio.run(
        run_once(agent, protocol.run_input(thread_id="t1", run_id="t1-0", messages=messages))
    )


@pytest.mark.parametrize(
    ("server", "path"),
    [("pydantic", "ask"), ("pydantic", "lookup"), ("broken", "state"), ("broken", "interrupt")],
)
def test_a_stream_we_accept_conforms(servers, server, path):
    recorded = run(servers, server, path)
    assert recorded["error"] == ""
    report = validate_agui(recorded["events"])
    assert report.summary.errors == 0, report.diagnostics


@pytest.mark.parametrize(
    ("path", "rule", "index", "ours"),
    [
        ("out-of-order", "AGUI001", 0, "TEXT_MESSAGE_CONTENT came before RUN_STARTED"),
        ("unknown-event", "AGUI503", 1, "unknown event type 'TELEPORT'"),
        ("missing-field", "AGUI504", 1, "a malformed TOOL_CALL_START event (toolCallName"),
    ],
)
def test_a_stream_we_reject_is_flagged_by_the_validator_too(servers, path, rule, index, ours):
    recorded = run(servers, "broken", path)
    assert ours in recorded["error"]
    assert len(recorded["events"]) == index + 1  # we stopped reading at the faulty event
    findings = validate_agui(recorded["events"]).diagnostics
    assert (rule, index) in [(finding.rule, finding.event_index) for finding in findings]
