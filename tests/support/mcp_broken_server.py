"""Stdio "servers" that get MCP wrong, for the bridge's error messages.

With no argument: it answers every line with text that is not JSON-RPC, then with a request for
a method no client has (the bridge must say so, not hang). With `old-protocol`: real JSON-RPC,
but `initialize` is answered with a protocol version no client speaks (a server from before
MCP's first release), and `server/discover` is unknown to it, as to every legacy server. With
`future-protocol`: every request is refused with -32022 (unsupported protocol version), naming
only a version from the future.
"""

import json
import sys

OLD_VERSION = "2023-01-01"
FUTURE_VERSION = "2099-01-01"


def answer(line: str, mode: str) -> dict | None:
    request = json.loads(line)
    if "id" not in request:
        return None  # a notification: no answer
    if mode == "future-protocol":
        data = {"supported": [FUTURE_VERSION], "requested": "2026-07-28"}
        error = {"code": -32022, "message": "Unsupported protocol version", "data": data}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    if request["method"] == "initialize":
        result = {
            "protocolVersion": OLD_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "old-server", "version": "0.1"},
        }
        return {"jsonrpc": "2.0", "id": request["id"], "result": result}
    error = {"code": -32601, "message": f"Method not found: {request['method']}"}
    return {"jsonrpc": "2.0", "id": request["id"], "error": error}


for _line in sys.stdin:
    if len(sys.argv) > 1:
        if (_answer := answer(_line, sys.argv[1])) is not None:
            print(json.dumps(_answer), flush=True)
        continue
    print("this is not JSON-RPC", flush=True)
    print('{"jsonrpc": "2.0", "id": 99, "method": "no/such/method", "params": {}}', flush=True)
