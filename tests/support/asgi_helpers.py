"""Requests handed to the ASGI application directly, as daphne hands them over."""


def http_scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    """Return the ASGI scope of an HTTP request from a local client."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
    }
