"""The HTTP API, version 1 (django-ninja): external agents open conversations, talk, ask.

Every endpoint is async and does its database work through `in_db` (a pooled thread that gives
its connection back), so a call that long-polls holds no thread and no connection while it
waits. The OpenAPI document is generated from these functions and served at /api/v1/docs.
"""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Header, NinjaAPI, Query, Schema, Status
from ninja.security import HttpBearer
from ninja.throttling import SimpleRateThrottle

from elicitation.models import AnswerFile, Part
from elicitation.uploads import is_file_id
from elicitation.views import file_response
from playground.api import external, problems
from playground.api.models import ApiToken
from playground.api.problems import PROBLEM_JSON, Problem, ProblemError
from playground.api.tokens import find_token
from playground.api.waiting import in_db, part_group, wait_in_group
from playground.chat.push import group_for
from playground.connections.services import ServicesFileError, UnknownServiceError
from playground.runs.models import Conversation

MAX_WAIT_SECONDS = 60


def Wait():  # a Query parameter, named like the type it stands for
    return Query(0, ge=0, le=MAX_WAIT_SECONDS, description="Seconds to wait for a change.")


class TokenAuth(HttpBearer):
    async def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        return await in_db(find_token)(token)


class TokenRateThrottle(SimpleRateThrottle):
    """At most API_RATE_LIMIT calls per token, counted in the cache all processes share."""

    def __init__(self) -> None:
        super().__init__(settings.API_RATE_LIMIT)

    def allow_request(self, request: HttpRequest) -> bool:
        self.num_requests, self.duration = self.parse_rate(settings.API_RATE_LIMIT)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str:
        return f"api-rate-{request.auth.pk}"


class PlaygroundAPI(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        """Return the OpenAPI document, saying that errors come as problem+json."""
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                for status, response in operation["responses"].items():
                    if int(status) >= 400 and "content" in response:
                        response["content"] = {PROBLEM_JSON: response["content"].popitem()[1]}
        return schema


api = PlaygroundAPI(
    title="Elicitation playground API",
    version="1",
    description="Ask a person a typed question from any agent, and collect the answer.",
    urls_namespace="api-v1",
    auth=TokenAuth(),
    throttle=[TokenRateThrottle()],
    docs_url="/docs",
)
problems.install(api)
# Every error is a problem body (a wait that runs out is not an error: the request comes back).
ERRORS = {frozenset({400, 401, 404, 409, 413, 422, 429, 503}): Problem}

# Wire names are camelCase, as in `requestedSchema`: the schemas below use them as is.


class ConversationIn(Schema):
    agentName: str = Field(min_length=1, max_length=80, pattern=r"\S")
    title: str = Field("", max_length=200)


class ConversationOut(Schema):
    id: int
    agentName: str
    title: str
    url: str = Field(description="Where the person opens the conversation in a browser.")


class MessageIn(Schema):
    text: str = Field(min_length=1, max_length=20_000, description="Markdown.")


class SentMessage(Schema):
    id: int


class PersonMessage(Schema):
    id: int
    text: str
    sentAt: datetime


class PersonMessages(Schema):
    messages: list[PersonMessage]
    cursor: int = Field(description="Pass as `after` to get only newer messages.")


class RequestIn(Schema):
    message: str = Field(description="The question, shown above the form.")
    requestedSchema: dict[str, Any] = Field(description="A flat JSON schema of the answer.")
    allowedActions: list[Literal["accept", "decline", "cancel", "respond"]] | None = None
    intent: str | None = Field(None, max_length=40)
    value: dict[str, Any] | None = Field(None, description="Values the form starts with.")
    assignees: list[str] | None = Field(
        None,
        description='Who else may answer: "group:<name>" and "user:<username>" entries, among '
        "the groups you belong to and their members (or the deployment's allow-lists). A name "
        "that is unknown or not allowed makes the request degraded (422).",
    )


class ConnectionRequestIn(Schema):
    service: str = Field(min_length=1, max_length=41, description="A declared service's name.")
    reason: str | None = Field(None, max_length=2000, description="Why you need it.")


class RequestOut(Schema):
    id: int
    conversationId: int
    state: Literal["pending", "submitted", "declined", "cancelled", "degraded"]
    message: str
    envelope: dict[str, Any] | None = Field(description="The answer, once settled.")
    degradedReason: str
    createdAt: datetime
    settledAt: datetime | None


def request_out(part: Part) -> dict:
    return {
        "id": part.pk,
        "conversationId": part.conversation_id,
        "state": part.state,
        "message": part.message,
        "envelope": None if part.state == Part.State.DEGRADED else part.response,
        "degradedReason": part.degraded_reason,
        "createdAt": part.created_at,
        "settledAt": part.settled_at,
    }


def _conversation(token: ApiToken, conversation_id: int) -> Conversation:
    return get_object_or_404(external.conversations_of(token), pk=conversation_id)


def _part(token: ApiToken, part_id: int) -> Part:
    parts = Part.objects.filter(conversation__in=external.conversations_of(token))
    return get_object_or_404(parts.select_related("conversation__agent"), pk=part_id)


@api.post("/conversations", response={201: ConversationOut, **ERRORS})
async def open_conversation(request: HttpRequest, payload: ConversationIn):
    """Open a conversation with an external agent (named by you) and get its browser URL."""
    conversation = await in_db(external.open_conversation)(
        request.auth, payload.agentName.strip(), payload.title
    )
    url = request.build_absolute_uri(conversation.get_absolute_url())
    out = {
        "id": conversation.pk,
        "agentName": conversation.agent.name,
        "title": conversation.title,
        "url": url,
    }
    return Status(201, out)


@api.post("/conversations/{conversation_id}/messages", response={201: SentMessage, **ERRORS})
async def send_message(request: HttpRequest, conversation_id: int, payload: MessageIn):
    """Say something to the person (markdown, shown as text: no raw HTML)."""

    def say():
        return external.say(_conversation(request.auth, conversation_id), payload.text)

    return Status(201, {"id": (await in_db(say)()).pk})


@api.get("/conversations/{conversation_id}/messages", response={200: PersonMessages, **ERRORS})
async def read_messages(
    request: HttpRequest, conversation_id: int, after: int = 0, wait: int = Wait()
):
    """Read what the person said after message `after`; `wait` seconds for a first one."""
    token = request.auth
    await in_db(_conversation)(token, conversation_id)  # 404 before waiting

    @in_db
    def newer():
        return external.person_messages(_conversation(token, conversation_id), after)

    turns = await (wait_in_group(group_for(conversation_id), newer, wait) if wait else newer())
    messages = [{"id": turn.pk, "text": turn.text, "sentAt": turn.created_at} for turn in turns]
    return {"messages": messages, "cursor": messages[-1]["id"] if messages else after}


@api.post(
    "/conversations/{conversation_id}/requests",
    response={201: RequestOut, **ERRORS},
)
async def ask(
    request: HttpRequest,
    response: HttpResponse,
    conversation_id: int,
    payload: RequestIn,
    idempotency_key: Annotated[str, Header(alias="Idempotency-Key", max_length=200)] = "",
):
    """Ask the person a `request_input` question. A payload this client cannot show is stored
    degraded and answered 422 with the reason. A retry with the same Idempotency-Key (kept
    24 hours) gets the same request back; the key with another conversation or body is 409."""
    token = request.auth

    def store():
        conversation = _conversation(token, conversation_id)
        try:
            return external.ask(token, conversation, payload.dict(), idempotency_key)
        except external.KeyReusedError as reused:
            raise ProblemError(
                409, "idempotency-key-reused", "Idempotency-Key reused.", str(reused)
            ) from None

    asked = await in_db(store)()
    if asked.replayed:
        response["Idempotent-Replayed"] = "true"
    part = asked.part
    if part.state == Part.State.DEGRADED:
        detail = f"elicitation: unsupported payload — {part.degraded_reason}"
        raise ProblemError(
            422, "degraded", "This question cannot be shown.", detail, requestId=part.pk
        )
    return Status(201, request_out(part))


@api.post(
    "/conversations/{conversation_id}/connections",
    response={201: RequestOut, **ERRORS},
)
async def request_connection(
    request: HttpRequest, conversation_id: int, payload: ConnectionRequestIn
):
    """Ask the person to connect a service (declared by the deployment) with a connection card.
    They type the credential, or sign in at the provider, in the vault's own form: the
    envelope is `{"connection", "service", "label"}`, a reference and never a value (no
    credential is ever sent through this API)."""

    def store():
        conversation = _conversation(request.auth, conversation_id)
        try:
            return external.request_connection(conversation, payload.service, payload.reason)
        except (UnknownServiceError, ServicesFileError) as error:
            raise ProblemError(422, "unknown-service", "No such service.", str(error)) from None

    return Status(201, request_out(await in_db(store)()))


@api.get("/conversations/{conversation_id}/requests", response={200: list[RequestOut], **ERRORS})
async def list_requests(request: HttpRequest, conversation_id: int):
    """List the conversation's requests, oldest first, with their states and envelopes."""

    def parts():
        conversation = _conversation(request.auth, conversation_id)
        return list(conversation.parts.order_by("created_at", "pk"))

    return [request_out(part) for part in await in_db(parts)()]


@api.get("/requests/{request_id}", response={200: RequestOut, **ERRORS})
async def get_request(request: HttpRequest, request_id: int, wait: int = Wait()):
    """Get a request; with `wait`, hold the call until it settles (at most `wait` seconds)."""
    token = request.auth
    part = await in_db(_part)(token, request_id)
    if part.is_pending and wait:

        async def settled():
            found = await in_db(_part)(token, request_id)
            return None if found.is_pending else found

        part = await wait_in_group(part_group(part.pk), settled, wait) or part
    return request_out(part)


@api.post("/requests/{request_id}/cancel", response={200: RequestOut, **ERRORS})
async def cancel_request(request: HttpRequest, request_id: int):
    """Cancel a pending request: the person's chat shows it cancelled at once."""

    def cancel():
        part = _part(request.auth, request_id)
        if not external.cancel(part):
            part.refresh_from_db()
            detail = f"This request is already {part.state}; a settled request never changes."
            raise ProblemError(409, "already-settled", "Request already settled.", detail)
        return part

    return request_out(await in_db(cancel)())


def _file(token: ApiToken, file_id: str) -> HttpResponse:
    files = AnswerFile.objects.filter(
        part__conversation__in=external.conversations_of(token), claimed_at__isnull=False
    )
    found = files.filter(pk=file_id).first() if is_file_id(file_id) else None
    if found is None:
        raise ProblemError(
            404,
            "not-found",
            "No such file.",
            "No file with this reference was attached to an answer in this agent's conversations.",
        )
    return file_response(found)


@api.get(
    "/files/{file_id}",
    response={200: None, **ERRORS},
    openapi_extra={"responses": {200: {"description": "The file's bytes, as a download."}}},
)
async def get_file(request: HttpRequest, file_id: str):
    """Download a file a person attached to an answer, by the `file` reference in its content."""
    return await in_db(_file)(request.auth, file_id)
