"""An AG-UI endpoint that gets the protocol wrong in one way per path, for the bad-input tests.

Run as `python agui_broken_server.py PORT LOG`; every request body is appended to LOG with its
path. `/state` and `/interrupt` get it right, to show the state and interrupts are kept.
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def event(**fields) -> bytes:
    return b"data: " + json.dumps(fields).encode() + b"\n\n"


def started(body: dict) -> bytes:
    return event(type="RUN_STARTED", threadId=body["threadId"], runId=body["runId"])


def finished(body: dict, **fields) -> bytes:
    return event(type="RUN_FINISHED", threadId=body["threadId"], runId=body["runId"], **fields)


def text(words: str, message_id: str = "m1") -> bytes:
    return (
        event(type="TEXT_MESSAGE_START", messageId=message_id, role="assistant")
        + event(type="TEXT_MESSAGE_CONTENT", messageId=message_id, delta=words)
        + event(type="TEXT_MESSAGE_END", messageId=message_id)
    )


def tool_call(call_id: str, name: str, arguments: dict) -> bytes:
    return (
        event(type="TOOL_CALL_START", toolCallId=call_id, toolCallName=name)
        + event(type="TOOL_CALL_ARGS", toolCallId=call_id, delta=json.dumps(arguments))
        + event(type="TOOL_CALL_END", toolCallId=call_id)
    )


COLOUR = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green"]}},
    "required": ["colour"],
}

RENDERED = {
    # A config card (it asks: Accept / Edit / Cancel), its proposal the call's `value`.
    "render-config": (
        "config-card",
        {"message": "Paint it this way?", "requestedSchema": COLOUR, "value": {"colour": "green"}},
    ),
    # A display card (it only shows), the card the call's `value`.
    "render-display": (
        "display",
        {
            "message": "The plan.",
            "value": {"title": "Plan", "fields": [{"label": "Walls", "value": "green"}]},
        },
    ),
}

INTERRUPTS = {
    "interrupt": {
        "id": "int-1",
        "reason": "input_required",
        "message": "Which colour for the walls?",
        "responseSchema": COLOUR,
    },
    # About a tool call the agent is about to make: a decision.
    "approval-interrupt": {
        "id": "int-2",
        "reason": "tool_call",
        "toolCallId": "c9",
        "message": "Delete the staging database?",
    },
    # A schema the contract refuses (a nested object).
    "bad-schema-interrupt": {
        "id": "int-3",
        "reason": "input_required",
        "message": "Where do you live?",
        "responseSchema": {
            "type": "object",
            "properties": {"address": {"type": "object", "properties": {}}},
        },
    },
    # Nothing to ask: no message, no schema, no decision.
    "empty-interrupt": {"id": "int-4", "reason": "input_required"},
    "stray-result": {"id": "int-5", "reason": "tool_call", "toolCallId": "c9"},
}

RELEASE_SECONDS = 60  # a test that never releases the stream does not hold this server


def released(path: Path, within: float) -> bool:
    """Wait until `path` exists (the test's go-ahead); return False if not within `within` s."""
    deadline = time.monotonic() + within
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def reply(path: str, body: dict):
    """Yield the chunks of the stream for `path`."""
    if path == "malformed":
        yield started(body) + b"data: {not json\n\n"
    elif path == "out-of-order":
        yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta="early") + started(body)
    elif path == "unknown-event":
        yield started(body) + event(type="TELEPORT", where="mars")
    elif path == "missing-field":
        yield started(body) + event(type="TOOL_CALL_START", toolCallId="c1")
    elif path == "unknown-tool":
        yield started(body) + tool_call("c1", "open_door", {"door": "front"}) + finished(body)
    elif path == "huge":
        yield started(body) + event(type="TEXT_MESSAGE_START", messageId="m1", role="assistant")
        yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta="x" * (2 * 1024 * 1024))
    elif path == "many":
        yield started(body) + event(type="TEXT_MESSAGE_START", messageId="m1", role="assistant")
        for _ in range(50):
            yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta="word ")
    elif path == "run-error":
        yield started(body) + event(type="RUN_ERROR", message="the model is down", code="E42")
    elif path == "cut" or (path == "cut-once" and LOG.read_text().count('"cut-once"') == 1):
        yield started(body) + event(type="TEXT_MESSAGE_START", messageId="m1", role="assistant")
        yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta="Half")
    elif path == "cut-once":
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        yield started(body) + text(f"Done: {users}.") + finished(body)
    elif path == "slow":
        yield started(body)
        time.sleep(5)
        yield finished(body)
    elif path == "bad-delta":
        yield started(body) + event(
            type="STATE_DELTA", delta=[{"op": "replace", "path": "/missing", "value": 1}]
        )
    elif path == "state":
        count = (body.get("state") or {}).get("count", 0)
        yield started(body) + event(type="STATE_SNAPSHOT", snapshot={"count": count, "seen": []})
        yield event(
            type="STATE_DELTA",
            delta=[
                {"op": "replace", "path": "/count", "value": count + 1},
                {"op": "add", "path": "/seen/-", "value": body["runId"]},
            ],
        )
        yield event(type="STEP_STARTED", stepName="counting")
        yield event(type="STEP_FINISHED", stepName="counting")
        yield text(f"Count is {count + 1}.") + finished(body)
    elif path in INTERRUPTS:
        if body.get("resume"):
            [entry] = body["resume"]
            said = json.dumps(entry.get("payload")) if entry["status"] == "resolved" else "no"
            stray = b""
            if path == "stray-result":  # the result of a call no run started
                stray = event(
                    type="TOOL_CALL_RESULT", toolCallId="c-other", messageId="r1", content="{}"
                )
            yield started(body) + stray + text(f"Resumed: {said}.")
            yield finished(body)
            return
        yield started(body) + finished(
            body, outcome={"type": "interrupt", "interrupts": [INTERRUPTS[path]]}
        )
    elif path == "stream":
        # The first words, then the rest once the test has seen them (it creates `release`).
        yield started(body) + event(type="TEXT_MESSAGE_START", messageId="m1", role="assistant")
        yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta="Painting the")
        if not released(LOG.parent / "release", within=RELEASE_SECONDS):
            return  # never released: the stream is cut, and the run says so
        yield event(type="TEXT_MESSAGE_CONTENT", messageId="m1", delta=" fence.")
        yield event(type="TEXT_MESSAGE_END", messageId="m1") + finished(body)
    elif path == "hang-once":
        # The first POST of a run hangs (the playground is killed meanwhile); sent again under
        # the same run id, the run asks, and the run after the answer replies.
        if any(m["role"] == "tool" for m in body["messages"]):
            yield started(body) + text("Thanks.") + finished(body)
            return
        sent = LOG.read_text().count(f'"runId": "{body["runId"]}"')
        if sent == 1:
            yield started(body)
            time.sleep(120)
            return
        yield started(body) + tool_call(
            "c1", "request_input", {"message": "Which colour?", "requestedSchema": COLOUR}
        )
        yield finished(body)
    elif path == "render":
        if any(m["role"] == "tool" for m in body["messages"]):
            yield started(body) + text("Thanks.") + finished(body)
            return
        yield started(body) + tool_call(
            "c1", "request_input", {"message": "Which colour?", "requestedSchema": COLOUR}
        )
        yield event(type="CUSTOM", name="render", value={"toolCallId": "c1", "kind": "url"})
        yield finished(body)
    elif path in RENDERED:  # a render event naming a kind that can show the call
        results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        if results:
            yield started(body) + text(f"Got {results[0]}.") + finished(body)
            return
        kind, arguments = RENDERED[path]
        yield started(body) + tool_call("c1", "request_input", arguments)
        yield event(type="CUSTOM", name="render", value={"toolCallId": "c1", "kind": kind})
        yield finished(body)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        path = self.path.strip("/")
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(LOG, "a") as file:
            headers = {name: self.headers[name] for name in ("Authorization", "X-Team")}
            file.write(json.dumps({"path": path, "body": body, "headers": headers}) + "\n")
        if path == "html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html>Welcome</html>")
            return
        if path == "old":  # an agent of another protocol version refuses the run input
            self.send_response(422)
            self.end_headers()
            return
        if path == "missing":
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for chunk in reply(path, body):
                self.wfile.write(chunk)
                self.wfile.flush()
        except OSError:
            pass  # the playground hung up (a limit, say)


if __name__ == "__main__":
    port, LOG = int(sys.argv[1]), Path(sys.argv[2])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()
