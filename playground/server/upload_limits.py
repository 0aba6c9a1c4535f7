"""Refuse an answer whose files are larger than its question takes, as its bytes arrive.

Django reads a request's whole body (to disk past FILE_UPLOAD_MAX_MEMORY_SIZE) before any
middleware, view or upload handler sees it. So this ASGI layer, outside Django, measures a
multipart POST to a part as it arrives: one larger than the question could ever take
(`uploads.body_limit`: each file field's files at their largest, and the other fields) is
refused with 413 and the reason, by its Content-Length before a byte of it is read, or as soon
as its bytes pass the limit (a body sent without a length). The refusal is the one
static/playground.js shows beside the form, so what the person typed stays. A body the client
cuts off is never handed to a view (Django drops the request), so nothing of it is stored.
"""

from asgiref.sync import sync_to_async
from django.urls import Resolver404, resolve

from elicitation.access import refused
from elicitation.contract import size_text
from elicitation.uploads import body_limit

TOO_LARGE = (
    "These files are more than this question takes at once ({limit} in all), so nothing was "
    "sent. What you typed is still here: choose smaller files."
)


class BodyTooLargeError(Exception):
    """The request's body went past its limit while it arrived."""


def limit_answer_uploads(app):
    """Wrap the HTTP application: answers with files are held to their question's limit."""

    async def application(scope, receive, send) -> None:
        limit = await _limit(scope)
        if limit is None:
            return await app(scope, receive, send)
        if _content_length(scope) > limit:
            return await _refuse(send, limit)
        try:
            await app(scope, _counted(receive, limit), send)
        except BodyTooLargeError:
            await _refuse(send, limit)

    return application


async def _limit(scope) -> int | None:
    """Return the body limit of an answer with files (a multipart POST to a part), else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    content_type = dict(scope.get("headers") or []).get(b"content-type", b"")
    if not content_type.startswith(b"multipart/form-data"):
        return None
    try:
        match = resolve(scope["path"].removeprefix(scope.get("root_path", "")))
    except Resolver404:
        return None
    if match.url_name != "settle_part":
        return None
    return await sync_to_async(body_limit)(match.kwargs["part_id"])


def _content_length(scope) -> int:
    value = dict(scope.get("headers") or []).get(b"content-length", b"0")
    return int(value) if value.isdigit() else 0


def _counted(receive, limit: int):
    """Return `receive`, raising BodyTooLargeError once the body it gave passes `limit`."""
    seen = 0

    async def counted():
        nonlocal seen
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > limit:
            raise BodyTooLargeError
        return message

    return counted


async def _refuse(send, limit: int) -> None:
    response = refused(TOO_LARGE.format(limit=size_text(limit)), status=413)
    response["Connection"] = "close"  # the rest of the body is never read
    headers = [(name.lower().encode(), value.encode()) for name, value in response.items()]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
