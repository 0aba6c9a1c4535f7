"""The `connection` kind: an agent asks to use one of the person's connections.

The card says which agent asks, for which service and why. It offers the person's existing
connection to that service when there is one ("Use your existing GitHub connection") and a form
to connect it ("Connect GitHub"). Both post to the vault
(`playground.connections.views.connect_part`),
never to the part's settle endpoint: the vault keeps the credential and settles the part with
a reference only:

    {"action": "accept", "content": {"connection": "<id>", "service": "github", "label": "…"}}

Decline and Cancel are a separate form posting to the settle endpoint, so no typed value goes
with them; an accept posted there is refused, so a credential can never travel as an answer.

The runtime builds the request (`TurnContext.request_connection`) in the part's value: the
service's name and title, the credential's fields (names and titles, never values), whether it
is connected by signing in at the provider instead (`signin`: OAuth; the card's button then
sends the person there, and the vault's callback settles the card) and the person's existing
connection (`{"id", "label"}`, or none), and the agent it is for when another asks on its
behalf (`for_agent`).

Without a `CONNECTIONS_KEY` the vault can keep nothing: the card says so, with its connect
forms disabled, before anyone types (Decline and Cancel still work).
"""

from django.conf import settings

from elicitation import contract
from elicitation.kinds.base import NOT_OFFERED, Answer, InteractionKind, Refusal
from elicitation.kinds.url import read_request
from elicitation.models import Part

NAME = "connection"
CONNECT_IN_CARD = "Connect with the card's own form: a credential is never sent as an answer."
NO_VAULT_KEY = (
    "Nothing can be connected here: this playground has no CONNECTIONS_KEY to keep connections "
    "encrypted with. Whoever runs it needs to set one; until then you can decline or cancel."
)


def parse_connection_request(payload: object, value: object) -> tuple[dict | None, str]:
    """Return (normalized card, "") or (None, reason) for a connection request."""
    data = read_request(payload, value)
    message = data.get("message")
    if not isinstance(message, str) or not message.strip():
        return None, "a connection request needs a message"
    if len(message) > contract.MAX_MESSAGE_CHARS:
        return None, f"message is longer than {contract.MAX_MESSAGE_CHARS} characters"
    service, title = data.get("service"), data.get("title")
    if not isinstance(service, str) or not service or not isinstance(title, str):
        return None, "a connection request needs a service (its name and title)"
    fields = data.get("fields")
    if not isinstance(fields, list) or not all(
        isinstance(item, dict) and isinstance(item.get("name"), str) for item in fields
    ):
        return None, "a connection request needs the credential's fields"
    existing = data.get("existing")
    if existing is not None and not (
        isinstance(existing, dict) and isinstance(existing.get("id"), str)
    ):
        return None, "the existing connection must be {id, label}"
    card = {
        "message": message,
        "service": service,
        "title": title,
        "fields": [
            {
                "name": item["name"],
                "title": str(item.get("title") or item["name"]),
                "secret": item.get("secret") is not False,
                "required": item.get("required") is not False,
                "default": str(item.get("default") or ""),
            }
            for item in fields
        ],
        "existing": existing and {"id": existing["id"], "label": str(existing.get("label", ""))},
        # Connected by signing in at the provider (OAuth) instead of typing a credential.
        "signin": data.get("signin") is True,
        # The agent the connection is for, when another asks on its behalf (the wizard's setup
        # agent asks for the agent it makes): the card names that one.
        "for_agent": str(data.get("for_agent") or ""),
    }
    return card, ""


def connection_context(part: Part, submitted: dict | None, errors: dict | None) -> dict:
    """Return the credential's inputs: what a refused form keeps (never a secret) and errors."""
    submitted, errors = submitted or {}, errors or {}
    inputs = []
    for item in part.normalized["fields"]:
        typed = (submitted.get(item["name"]) or [item["default"]])[0]
        value = "" if item["secret"] else typed
        inputs.append(item | {"value": value, "error": errors.get(item["name"], "")})
    label = (submitted.get("label") or [""])[0]
    # A refused form opens on the new-connection form, where its errors are.
    return {
        "inputs": inputs,
        "label_value": label,
        "label_error": errors.get("label", ""),
        "open_form": bool(submitted) or not part.normalized.get("existing"),
        # Read at each rendering, so a card asked before the key was set connects once it is.
        "no_vault_key": "" if settings.CONNECTIONS_KEYS else NO_VAULT_KEY,
    }


def read_connection_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Decline or Cancel; connecting happens in the vault, never through this endpoint."""
    if answer.action == "cancel":
        return contract.cancel()
    if answer.action == "decline" and "decline" in part.allowed_actions:
        return contract.decline()
    if answer.action == "accept":
        return Refusal(400, {"": CONNECT_IN_CARD})
    return Refusal(400, {"": NOT_OFFERED})


KIND = InteractionKind(
    name=NAME,
    tool_name="request_connection",
    template="elicitation/kinds/connection.html",
    parse=parse_connection_request,
    read_answer=read_connection_answer,
    context=connection_context,
    label="Connection requested by",
)
