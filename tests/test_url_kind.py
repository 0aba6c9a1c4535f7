"""URL-mode elicitation: a page of the server's own to open, then a wait until it is done."""

import mcp_types
import pytest

from elicitation.kinds.url import MAX_URL_CHARS, parse_url_request
from elicitation.kinds.url_wait import COMPLETED, waiting_for
from elicitation.mcp_wire import elicit_result
from elicitation.models import Part
from elicitation.settle import settle_part
from tests.support.runtime_agents import GITHUB_SIGN_IN
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)


def reason_for(url: object) -> str:
    card, reason = parse_url_request({"message": "Sign in", "url": url}, None)
    assert card is None
    return reason


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("javascript:alert(1)", "only http and https URLs can be opened, not javascript:"),
        ("data:text/html,<b>hi</b>", "only http and https URLs can be opened, not data:"),
        ("JavaScript:alert(1)", "only http and https URLs can be opened, not javascript:"),
        ("//example.com/x", "the URL must start with https:// or http://"),
        ("https://ada@evil.example/", "the URL has a user name or password before its host"),
        ("https://a:b@evil.example/", "the URL has a user name or password before its host"),
        ("https://example.com/\x00", "the URL contains spaces or control characters"),
        ("https://example.com/a\nb", "the URL contains spaces or control characters"),
        ("https://example.com/a b", "the URL contains spaces or control characters"),
        ("https://example.com/" + "a" * MAX_URL_CHARS, "the URL is longer than 2,048 characters"),
        ("https:///path", "the URL has no host"),
        ("https://example.com:99999/", "the URL cannot be read"),
        (None, "a URL request needs a url"),
    ],
)
def test_a_url_that_is_not_a_web_page_degrades_with_the_reason(url, reason):
    assert reason_for(url) == reason


def test_the_card_splits_the_url_so_its_host_stands_out():
    card, _ = parse_url_request(
        {"mode": "url", "message": "Pay", "url": "HTTPS://pay.example.com:8443/checkout?id=1"},
        {"server": "shop", "elicitationId": "e-9"},
    )

    assert card == {
        "message": "Pay",
        "url": "https://pay.example.com:8443/checkout?id=1",
        "url_start": "https://",
        "host": "pay.example.com:8443",
        "url_rest": "/checkout?id=1",
        "server": "shop",
        "elicitation_id": "e-9",
    }


def test_a_host_in_another_script_is_shown_and_opened_as_punycode():
    card, _ = parse_url_request({"message": "Sign in", "url": "https://аpple.com/login"}, None)

    assert card["host"] == "xn--pple-43d.com"
    assert card["url"] == "https://xn--pple-43d.com/login"


def test_opening_settles_the_card_and_the_wait_follows_until_i_am_done(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, GITHUB_SIGN_IN)
    card = pending(conversation)
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert card.render_kind == "url"
    assert f'href="{GITHUB_SIGN_IN}"' in page
    assert 'target="_blank" rel="noopener noreferrer"' in page
    assert '<strong class="url-host">github.com</strong>' in page
    assert "github asks you to open a page" in page
    assert "{#" not in page  # no template comment shown as text

    opened = answer(client, card)
    assert opened.status_code == 200
    assert "Opened github.com" in opened.content.decode()

    wait = pending(conversation)
    assert wait.render_kind == "url-wait"
    assert "Waiting for github…" in client.get(f"/c/{conversation.pk}/").content.decode()
    assert answer(client, wait, "decline").status_code == 400  # only "I'm done" or Cancel

    done = answer(client, wait).content.decode()
    assert "Marked done by alice" in done
    assert said(conversation) == ["Signed in: accept."]


def test_the_server_completes_the_wait_with_no_person(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, GITHUB_SIGN_IN)
    answer(client, pending(conversation))

    wait = waiting_for("sign-in-1").get()
    html = settle_part(wait, COMPLETED)

    assert "Completed by github" in html and "Marked done" not in html
    wait.refresh_from_db()
    assert (wait.state, wait.settled_by) == (Part.State.SUBMITTED, None)
    assert said(conversation) == ["Signed in: accept."]
    assert not waiting_for("sign-in-1").exists()


def test_declining_the_page_reaches_the_agent_and_the_server_as_decline(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, GITHUB_SIGN_IN)
    card = pending(conversation)

    assert "Declined by alice" in answer(client, card, "decline").content.decode()
    card.refresh_from_db()
    assert said(conversation) == ["Not opened: decline"]
    assert mcp_types.ElicitResult.model_validate(elicit_result(card.response)).action == "decline"


def test_an_opened_page_answers_the_server_with_an_accept_and_no_content(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, GITHUB_SIGN_IN)
    card = pending(conversation)
    answer(client, card)
    card.refresh_from_db()

    assert elicit_result(card.response) == {"action": "accept"}


def test_a_hostile_url_never_reaches_the_page(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, "javascript:alert(document.cookie)")

    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert 'href="javascript:' not in page
    assert "only http and https URLs can be opened, not javascript:" in page
    assert said(conversation) == [
        "Not opened: error elicitation: unsupported payload \N{EM DASH} only http and https "
        "URLs can be opened, not javascript:"
    ]


def test_cancelling_the_wait_tells_the_agent(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-url")
    send(client, conversation, GITHUB_SIGN_IN)
    answer(client, pending(conversation))

    chip = answer(client, pending(conversation), "cancel").content.decode()

    assert "Cancelled by alice" in chip and "Waiting for github</span>" in chip
    assert said(conversation) == ["Signed in: cancel."]
