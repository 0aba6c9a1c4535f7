"""A websocket the browser closed while something was being sent on it is a normal end, for
every consumer: the send is dropped, not raised.

A tab closed as a push went out (or as a consumer came back from its database hop) leaves a
send on a socket whose closing handshake has begun: daphne's protocol refuses it ("Attempt to
send on a closed protocol", autobahn's `Disconnected`), and the consumer died with a traceback
in the log. Other servers raise an `OSError` there, as the ASGI spec asks. Either way nobody is
left to read what was sent, and the consumer's `disconnect` follows as usual.
"""

from autobahn.exception import Disconnected


def dropping_sends_on_closed_sockets(app):
    """Wrap an ASGI websocket application so a send on a closed socket is dropped."""

    async def application(scope, receive, send):
        async def send_unless_closed(message: dict) -> None:
            try:
                await send(message)
            except (Disconnected, OSError):
                pass  # the browser went away mid-send: nothing left to tell it

        return await app(scope, receive, send_unless_closed)

    return application
