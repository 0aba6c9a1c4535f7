"""A test server a benchmark's stack talks to (the MCP test server, an AG-UI test agent): a
script of tests/ started on a free port before the stack, whose processes read its address from
a file the benchmark writes, and killed after."""

import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bench.stack import wait_until
from tests.support.live_server import free_port


@contextmanager
def serving(arguments: Callable[[int], list[str]], what: str) -> Iterator[int]:
    """Run `python <arguments(port)>` on a free port until the block ends; yield the port."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *arguments(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until(lambda: _listening(port), 30, f"{what} did not start")
        yield port
    finally:
        process.kill()
        process.wait()


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
