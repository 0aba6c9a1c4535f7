"""A stdio "server" that answers every line with text that is not JSON-RPC, then with a
request for a method no client has: the bridge must say so, not hang."""

import sys

for _line in sys.stdin:
    print("this is not JSON-RPC", flush=True)
    print('{"jsonrpc": "2.0", "id": 99, "method": "no/such/method", "params": {}}', flush=True)
