"""Errors as JSON problem bodies (RFC 9457): `type`, `title`, `status`, `detail`, `errors`.

`errors` points at fields: `[{"field": "requestedSchema", "message": "..."}]`.
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

TYPE_BASE = "https://elicitation-playground.invalid/problems/"
PROBLEM_JSON = "application/problem+json"


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

    @api.exception_handler(HttpError)
    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        if exc.status_code == 400:
            detail = "The request body is not valid JSON."
            return problem(400, "malformed", "Malformed request body.", detail)
        return problem(exc.status_code, "error", str(exc), str(exc))
