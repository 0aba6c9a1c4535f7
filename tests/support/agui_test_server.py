"""A Pydantic AI agent served with the library's own AG-UI adapter, its model a script.

Run as `python agui_test_server.py PORT LOG`: each scenario is an agent at its own path
(`/ask`, `/twice`, ...), and every request body it receives is appended to LOG (one JSON line
each, with its path and when it arrived), so a test can tell how many runs the agent was sent
and check them against the protocol's own types; so is each tool call the model emits (a
line with `emitted`, the tool's name, and when: what bench/agui_roundtrip.py times from).
The model (`FunctionModel`) answers from the messages it is sent, so each run of a turn
continues where the last one stopped.
"""

import json
import sys
import time

import uvicorn
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

COLOUR = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green"]}},
    "required": ["colour"],
}
SIZE = {
    "type": "object",
    "properties": {"size": {"type": "string", "enum": ["small", "large"]}},
    "required": ["size"],
}
NESTED = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}


def results(messages: list[ModelMessage]) -> list:
    """Return every tool result the model was sent, oldest first (JSON decoded when it is)."""
    found = []
    for message in messages:
        for part in getattr(message, "parts", []):
            if isinstance(part, ToolReturnPart):
                content = part.content
                try:
                    content = json.loads(content) if isinstance(content, str) else content
                except ValueError:
                    pass
                found.append(content)
    return found


def call(name: str, **args) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"{name}-{len(args)}")])


def say(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def ask(got: list) -> ModelResponse:
    if not got:
        return call("request_input", message="Which colour?", requestedSchema=COLOUR)
    answer = got[-1]
    if isinstance(answer, dict) and answer.get("action") == "accept":
        return say(f"You picked {answer['content']['colour']}.")
    return say(f"No colour, then ({answer.get('action') if isinstance(answer, dict) else answer}).")


def twice(got: list) -> ModelResponse:
    if not got:
        return call("request_input", message="Which colour?", requestedSchema=COLOUR)
    if len(got) == 1:
        return call("request_input", message="Which size?", requestedSchema=SIZE)
    return say(f"A {got[1]['content']['size']} {got[0]['content']['colour']} one.")


def degraded(got: list) -> ModelResponse:
    if not got:
        return call("request_input", message="Which colour?", requestedSchema=NESTED)
    if len(got) == 1:
        assert str(got[0]).startswith("elicitation: unsupported payload"), got
        return call("request_input", message="Which colour, then?", requestedSchema=COLOUR)
    return say(f"Thanks: {got[1]['content']['colour']}.")


def approval(got: list) -> ModelResponse:
    if not got:
        return call(
            "request_approval",
            message="Delete the staging database?",
            details={"Database": "staging"},
        )
    return say("Deleted." if got[0]["approved"] else "Kept it.")


def lookup(got: list) -> ModelResponse:
    if not got:
        return call("lookup", city="Lisbon")
    return say(f"It is {got[0]} there.")


def umbrella(got: list) -> ModelResponse:
    if not got:
        return call("lookup", city="Lisbon")
    if len(got) == 1:
        message = f"It is {got[0]}. Which colour?"
        return call("request_input", message=message, requestedSchema=COLOUR)
    return say(f"A {got[1]['content']['colour']} umbrella.")


def html(got: list) -> ModelResponse:
    return say('<script>alert("x")</script> **bold**')


SCENARIOS = {f.__name__: f for f in (ask, twice, degraded, approval, lookup, umbrella, html)}


def build(log: str) -> Starlette:
    routes = []
    for name, scenario in SCENARIOS.items():
        routes.append(Route(f"/{name}", endpoint(scenario, name, log), methods=["POST"]))
    return Starlette(routes=routes)


def endpoint(scenario, name: str, log: str):
    async def stream(messages: list[ModelMessage], info: AgentInfo):
        reply = scenario(results(messages))
        for part in reply.parts:
            if isinstance(part, TextPart):
                for index, word in enumerate(part.content.split(" ")):
                    yield word if index == 0 else f" {word}"
            else:
                delta = DeltaToolCall(
                    part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id
                )
                write_line(log, {"path": name, "emitted": part.tool_name, "at": time.time()})
                yield {0: delta}

    agent = Agent(FunctionModel(stream_function=stream))

    @agent.tool_plain
    def lookup(city: str) -> str:
        """Return the weather in a city."""
        return "sunny"

    async def run(request: Request):
        arrived = time.time()
        body = json.loads(await request.body())
        write_line(log, {"path": name, "body": body, "at": arrived})
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    return run


def write_line(log: str, line: dict) -> None:
    with open(log, "a") as file:
        file.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    port, log = int(sys.argv[1]), sys.argv[2]
    uvicorn.run(build(log), host="127.0.0.1", port=port, log_level="warning")
