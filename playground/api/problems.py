"""Errors as JSON problem bodies (RFC 9457): `type`, `title`, `status`, `detail`, `errors`.

`errors` points at fields: `[{"field": "requestedSchema", "message": "..."}]`. Everything under
/api/ answers this way: the endpoints' errors, a path nobody serves, a method a path does not
take, a database that does not answer (a 503), and a failure of our own (a 500 that says
nothing of its cause; the log has it).
"""

import logging
from functools import wraps
from inspect import iscoroutinefunction

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.log import log_response
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

TYPE_BASE = "https://elicitation-playground.invalid/problems/"
PROBLEM_JSON = "application/problem+json"
UNAVAILABLE = (
    "We can't reach the database right now. Nothing was saved half-way: if you had just sent "
    "something, read it back in a few seconds before you send it again."
)

logger = logging.getLogger(__name__)


class FieldError(Schema):
    field: str
    message: str


class Problem(Schema):
    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldError] = []


class ProblemError(Exception):
    """Raised by an endpoint to answer with a problem body."""

    def __init__(self, status: int, kind: str, title: str, detail: str, **extra):
        super().__init__(detail)
        self.status, self.kind, self.title, self.detail, self.extra = (
            status,
            kind,
            title,
            detail,
            extra,
        )


def problem(status: int, kind: str, title: str, detail: str, errors=(), **extra) -> HttpResponse:
    body = {
        "type": TYPE_BASE + kind,
        "title": title,
        "status": status,
        "detail": detail,
        "errors": list(errors),
        **extra,
    }
    return JsonResponse(body, status=status, content_type=PROBLEM_JSON)


def unknown_path(request: HttpRequest) -> HttpResponse:
    """Answer a path under /api/ that nothing serves (Django's own 404 page is HTML)."""
    detail = f"There is no {request.path} in this API. The endpoints are listed at /api/v1/docs."
    return problem(404, "not-found", "Not found.", detail)


def _wrong_method(response: HttpResponse) -> HttpResponse:
    # ninja answers a method its path does not take with a bare 405; keep its Allow header.
    if response.status_code != 405 or response.get("Content-Type") == PROBLEM_JSON:
        return response
    allowed = response["Allow"]
    detail = f"This path takes {allowed} only."
    answer = problem(405, "method-not-allowed", "Method not allowed.", detail)
    answer["Allow"] = allowed
    return answer


def refusing_wrong_methods(urls: tuple) -> tuple:
    """Return an API's URL patterns with each view answering a wrong method as a problem."""
    patterns, app_name, namespace = urls
    for pattern in patterns:
        pattern.callback = _checking_the_method(pattern.callback)
    return patterns, app_name, namespace


def _checking_the_method(view):
    if iscoroutinefunction(view):

        @wraps(view)
        async def checked_async(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            return _wrong_method(await view(request, *args, **kwargs))

        return checked_async

    @wraps(view)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return _wrong_method(view(request, *args, **kwargs))

    return checked


def _field(loc) -> str:
    # ninja reports ("body", "payload", "requestedSchema", 0): the caller knows it as a path.
    names = [str(name) for name in loc[1:] if name not in ("payload",)]
    return ".".join(names) or str(loc[0])


def install(api: NinjaAPI) -> None:
    """Answer every error of `api` with a problem body."""

    @api.exception_handler(ProblemError)
    def on_problem(request: HttpRequest, exc: ProblemError) -> HttpResponse:
        return problem(exc.status, exc.kind, exc.title, exc.detail, **exc.extra)

    @api.exception_handler(ValidationError)
    def on_invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        errors = [{"field": _field(e["loc"]), "message": e["msg"]} for e in exc.errors]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return problem(422, "invalid", "The request does not match the schema.", detail, errors)

    @api.exception_handler(AuthenticationError)
    def on_unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        detail = "Send a valid, unrevoked API token: Authorization: Bearer <token>."
        return problem(401, "unauthenticated", "Not authenticated.", detail)

    @api.exception_handler(Throttled)
    def on_throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
        detail = "This token sent too many requests. Wait for the Retry-After seconds."
        return problem(429, "rate-limited", "Too many requests.", detail)

    @api.exception_handler(Http404)
    def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        detail = "There is nothing with this id that your token can see."
        return problem(404, "not-found", "Not found.", detail)

    @api.exception_handler(RequestDataTooBig)
    def on_too_large(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        detail = f"Send at most {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes."
        return problem(413, "too-large", "Request body too large.", detail)

    @api.exception_handler(OperationalError)
    @api.exception_handler(InterfaceError)
    def on_database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
        logger.error("database unavailable: %s %s: %s", request.method, request.path, exc)
        response = problem(503, "database-unavailable", "Database unavailable.", UNAVAILABLE)
        response["Retry-After"] = "10"
        return response

    @api.exception_handler(Exception)
    def on_failure(request: HttpRequest, exc: Exception) -> HttpResponse:
        # Nothing of the exception goes out: its text can hold paths, SQL or values.
        detail = "Something failed on our side. It is logged; try again in a moment."
        response = problem(500, "internal", "Internal server error.", detail)
        log_response(
            "Internal Server Error: %s",
            request.path,
            response=response,
            request=request,
            exception=exc,
        )
        return response

    @api.exception_handler(HttpError)
    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        if exc.status_code == 400:
            detail = "The request body is not valid JSON."
            return problem(400, "malformed", "Malformed request body.", detail)
        return problem(exc.status_code, "error", str(exc), str(exc))
