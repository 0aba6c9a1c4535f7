"""The `url` kind: MCP's URL-mode elicitation, a page of the server's own to open.

A card names the server, shows its message and the full URL with its host highlighted, and
offers Open (a link to a new tab, `rel="noopener noreferrer"`, which also settles the part as
accept), Decline and Cancel. Only http and https URLs of at most 2,048 characters are shown;
a `javascript:` or `data:` URL, one with a user name or password before the host
(`user@host`), or one with spaces or control characters degrades with the reason.

Settled parts never change, so the wait after Open is a second kind, `url-wait`
(`elicitation.kinds.url_wait`). A runner asks for both through `TurnContext.render`:

    opened = await ctx.render(
        kind="url",
        message="Sign in to GitHub to connect your account.",
        value={"url": url, "server": "github", "elicitationId": elicitation_id},
    )
    if opened.action == "accept":  # the person opened the page
        await ctx.render(
            kind="url-wait",
            message="Finish in the page that opened, then come back here.",
            value={"url": url, "server": "github", "elicitationId": elicitation_id},
        )

A source that builds parts itself (`build_part`) may pass the MCP request params
(`{"mode": "url", "message", "url", "elicitationId"}`) as the payload instead: the kind reads
the payload's keys over the value's. `server` defaults to the agent's name on the card.

The accept envelope is `{"action": "accept"}`: MCP's `ElicitResult` for URL mode carries no
content (`elicitation.mcp_wire.elicit_result`).
"""

import unicodedata
from urllib.parse import urlsplit, urlunsplit

from elicitation import contract
from elicitation.kinds.base import NOT_OFFERED, Answer, InteractionKind, Refusal
from elicitation.models import Part

MAX_URL_CHARS = 2048
SCHEMES = ("http", "https")


def read_request(payload: object, value: object) -> dict:
    """Return the request's keys: the payload's over the value's (either may hold them)."""
    merged = dict(value) if isinstance(value, dict) else {}
    if isinstance(payload, dict):
        merged |= {key: item for key, item in payload.items() if item is not None}
    return merged


def parse_url_request(payload: object, value: object) -> tuple[dict | None, str]:
    """Return (normalized card, "") or (None, reason) for a URL-mode request."""
    data = read_request(payload, value)
    message = data.get("message")
    if not isinstance(message, str) or not message.strip():
        return None, "a URL request needs a message"
    if len(message) > contract.MAX_MESSAGE_CHARS:
        return None, f"message is longer than {contract.MAX_MESSAGE_CHARS} characters"
    url, problem = check_url(data.get("url"))
    if problem:
        return None, problem
    server = data.get("server")
    start, host = f"{urlsplit(url).scheme}://", urlsplit(url).netloc
    card = {
        "message": message,
        "url": url,
        # The URL in three pieces, so the card can highlight where the link goes.
        "url_start": start,
        "host": host,
        "url_rest": url[len(start) + len(host) :],
        "server": server.strip() if isinstance(server, str) and server.strip() else "",
    }
    elicitation_id = data.get("elicitationId")
    if isinstance(elicitation_id, str) and elicitation_id:
        card["elicitation_id"] = elicitation_id
    return card, ""


def check_url(url: object) -> tuple[str, str]:
    """Return (the URL to open, "") or ("", why it cannot be offered).

    A host in another script is shown and opened in its ASCII (punycode) form, so what the
    person reads is where the link goes.
    """
    if not isinstance(url, str) or not url:
        return "", "a URL request needs a url"
    if len(url) > MAX_URL_CHARS:
        return "", f"the URL is longer than {MAX_URL_CHARS:,} characters"
    if any(char.isspace() or unicodedata.category(char) == "Cc" for char in url):
        return "", "the URL contains spaces or control characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "", "the URL cannot be read"
    if not parts.scheme:
        return "", "the URL must start with https:// or http://"
    if parts.scheme.lower() not in SCHEMES:
        return "", f"only http and https URLs can be opened, not {parts.scheme}:"
    if "@" in parts.netloc:
        return "", "the URL has a user name or password before its host"
    if not parts.hostname:
        return "", "the URL has no host"
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        return "", "the URL's host is not a valid domain name"
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment)), ""


def read_url_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Open (accept), Decline or Cancel; nothing is typed, so nothing else is read."""
    if answer.action == "accept":
        return {"action": "accept"}
    if answer.action == "decline":
        return contract.decline()
    if answer.action == "cancel":
        return contract.cancel()
    return Refusal(400, {"": NOT_OFFERED})


KIND = InteractionKind(
    name="url",
    tool_name="open_url",
    template="elicitation/kinds/url.html",
    parse=parse_url_request,
    read_answer=read_url_answer,
    label="Page to open from",
)
