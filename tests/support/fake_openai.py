"""A small OpenAI-compatible server for tests: chat completions, streamed as server-sent events.

It answers `POST /v1/chat/completions` from a script, one reply per request, and keeps every
request body it received. A reply is `text("...")`, `tool_calls(("name", {args}), ...)`, an
HTTP error (`failure(429)`), or raw bytes of a broken stream (`garbage(...)`); `hold=True`
streams the first word and then waits until the test calls `release()`.

For bench/llm_overhead.py: `delay` is how long the model "thinks" before it answers,
`repeat=True` plays the script again from its start after its last reply, `timings` holds
when each request arrived and when its answer was sent in full (time.time()), and
`keep_alive=True` speaks HTTP/1.1 with chunked replies, so a client keeps its connection as
it does with a real server (the default closes each one, which the tests that cut a stream
short rely on).
"""

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.live_server import free_port

MODEL = "fake-model"


@dataclass
class Reply:
    text: str = ""
    calls: list = field(default_factory=list)
    status: int = 200
    raw: bytes = b""
    hold: bool = False


def text(words: str, *, hold: bool = False) -> Reply:
    return Reply(text=words, hold=hold)


def tool_calls(*calls: tuple[str, dict]) -> Reply:
    return Reply(calls=list(calls))


def failure(status: int) -> Reply:
    return Reply(status=status)


def garbage(raw: bytes) -> Reply:
    return Reply(raw=raw)


def _chunk(delta: dict, finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}


class FakeOpenAI:
    def __init__(
        self, *replies: Reply, delay: float = 0.0, repeat: bool = False, keep_alive: bool = False
    ):
        self.replies = list(replies)
        self.delay, self.repeat, self.keep_alive = delay, repeat, keep_alive
        self.requests: list[dict] = []
        self.timings: list[tuple[float, float]] = []
        self.released = threading.Event()
        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def release(self) -> None:
        """Let a held reply finish."""
        self.released.set()

    def close(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if fake.keep_alive else "HTTP/1.0"
            # A stream's last small writes go out at once, as from a real server (with Nagle's
            # algorithm, a kept connection's last chunk waited ~40 ms for the client's ACK).
            disable_nagle_algorithm = fake.keep_alive

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                received = time.time()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                index = len(fake.requests) - 1
                count = len(fake.replies)
                reply = fake.replies[index % count if fake.repeat else min(index, count - 1)]
                time.sleep(fake.delay)
                try:
                    fake.answer(self, reply)
                    self.wfile.flush()
                except OSError:
                    pass  # the playground went away mid-stream (a test killed it)
                fake.timings.append((received, time.time()))

        return Handler

    def answer(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.status != 200:
            error = {"error": {"message": "fake failure", "type": "server_error"}}
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("retry-after-ms", "10")
            body = json.dumps(error).encode()
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        if self.keep_alive:
            handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        send = handler.wfile.write
        if self.keep_alive:

            def send(data: bytes) -> None:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        try:
            self._stream(handler, reply, send)
        finally:
            if self.keep_alive:
                handler.wfile.write(b"0\r\n\r\n")

    def _stream(self, handler: BaseHTTPRequestHandler, reply: Reply, send) -> None:
        if reply.raw:
            send(reply.raw)
            return
        send(_chunk({"role": "assistant", "content": ""}))
        for index, word in enumerate(reply.text.split(" ") if reply.text else []):
            send(_chunk({"content": word if index == 0 else f" {word}"}))
            handler.wfile.flush()
            if reply.hold and index == 0:
                self.released.wait(timeout=60)
        for index, (name, args) in enumerate(reply.calls):
            arguments = args if isinstance(args, str) else json.dumps(args)  # str: sent as is
            call = {
                "index": index,
                "id": f"call_{len(self.requests)}_{index}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            send(_chunk({"tool_calls": [call]}))
        send(_chunk({}, "tool_calls" if reply.calls else "stop"))
        body = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0}
        usage = {**body, "model": MODEL, "choices": [], "usage": USAGE}
        send(b"data: " + json.dumps(usage).encode() + b"\n\n")
        send(b"data: [DONE]\n\n")
