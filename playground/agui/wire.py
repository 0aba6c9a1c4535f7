"""An AG-UI run on the conversation's wire (the Wire panel): the RunAgentInput POSTed and each
event of its stream, as they travelled, with the connection's own moments (where it was sent,
the HTTP answer, why it failed) between them. Header values are secrets of the log, so they
show nowhere; logging holds up no run (`playground.runs.wire`).
"""

from playground.agui.agents_file import AguiAgentConfig
from playground.runs.wire import WireLog


class AguiWireLog(WireLog):
    """The wire of one run: a `request` (the run input) and its `event`s, `error` for RUN_ERROR."""

    def classify(self, message: dict) -> tuple[str, str]:
        kind = message.get("type")
        if isinstance(kind, str):
            return ("error" if kind == "RUN_ERROR" else "event"), kind
        return ("request", "RunAgentInput") if "runId" in message else ("event", "")


def wire_of(conversation_id: int, agent: AguiAgentConfig) -> AguiWireLog:
    """Return the wire of a run of `agent` in the conversation (its header values redacted)."""
    headers = agent.header_values()
    return AguiWireLog(conversation_id, f"AG-UI: {agent.display_name}", list(headers.values()))


def opening(agent: AguiAgentConfig, run_id: str) -> str:
    """Return where a run is sent and the names of the headers sent with it (never a value)."""
    sent = [f"{name}: [redacted]" for name in agent.header_values()]
    where = f"POST of run {run_id} to {agent.url}"
    return where + (f"; with {', '.join(sent)}" if sent else "") + "."
