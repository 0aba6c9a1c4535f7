"""Every part state has a changelist row and a read-only detail showing what the person saw."""

import pytest

from tests.support.admin_support import (
    chat_client,
    describe_in_wizard,
    frames,
    make_person,
    make_staff,
    seed_review_data,
)

PARTS = "/admin/elicitation/part/"
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def parts(seeded):
    make_person("alice")
    return seed_review_data("alice")


@pytest.fixture
def admin_client(db):
    return chat_client(make_staff("root", superuser=True))


def detail(client, part):
    response = client.get(f"{PARTS}{part.pk}/change/")
    assert response.status_code == 200
    [question] = frames(response)
    return question, response.content.decode()


def test_the_changelist_shows_every_state_newest_first(admin_client, parts):
    page = admin_client.get(PARTS).content.decode()
    for state in ["pending", "submitted", "declined", "cancelled", "degraded"]:
        assert f'class="state-badge state-badge--{state}"' in page
    assert "Which environment should I deploy to?" in page
    assert "What is the registry password?" in page
    assert "tool_permission" in page
    newest, oldest = parts["pending"], parts["submitted"]
    assert page.index(f"{PARTS}{newest.pk}/change/") < page.index(f"{PARTS}{oldest.pk}/change/")


def test_a_pending_question_shows_as_a_form_nobody_can_use(admin_client, parts):
    question, page = detail(admin_client, parts["pending"])
    assert "Which environment should I deploy to?" in question
    assert 'value="production"' in question
    assert question.count(" disabled") >= 6  # three radios, the text box, three buttons
    assert "/static/playground.css" in question
    assert "Shown in the chat" in page and "not yet" in page
    assert "(none yet)" in page  # no response envelope


def test_settled_parts_show_the_chip_the_chat_showed(admin_client, parts):
    question, page = detail(admin_client, parts["submitted"])
    assert "chip--submitted" in question and "<form" not in question
    assert "Staging" in question and "v1.4.2" in question
    assert "&quot;action&quot;: &quot;accept&quot;" in page  # the envelope, as JSON
    assert "Agent resumed" in page
    assert (
        f'href="/admin/playground/conversation/{parts["submitted"].conversation_id}/change/"'
        in page
    )

    for name, shown, action in [
        ("declined", "Declined", "decline"),
        ("cancelled", "Cancelled", "cancel"),
    ]:
        question, page = detail(admin_client, parts[name])
        assert f"chip--{name}" in question and shown in question
        assert f"&quot;action&quot;: &quot;{action}&quot;" in page


def test_a_degraded_part_shows_the_reason_and_the_refused_payload(admin_client, parts):
    question, page = detail(admin_client, parts["degraded"])
    assert "Could not show this question" in question
    assert "property &quot;password&quot; asks for a secret" in question
    assert "Original payload (as the agent sent it)" in page
    assert "(none: the payload was refused)" in page
    assert "Refused as unsupported" in page


def test_only_a_pending_part_offers_cancel_on_its_page(admin_client, parts):
    _, pending = detail(admin_client, parts["pending"])
    assert 'value="cancel_pending"' in pending
    for state in ["submitted", "declined", "cancelled", "degraded"]:
        _, settled = detail(admin_client, parts[state])
        assert 'value="cancel_pending"' not in settled, state
        assert 'value="export_csv"' in settled  # the other actions stay


def test_the_agent_filter_lists_drafts_once(admin_client, parts):
    for person in ("bob", "carol"):
        make_person(person)
        describe_in_wizard(person, "Watch Zendesk for urgent tickets")
    page = admin_client.get(PARTS).content.decode()
    assert page.count("Agent setup (drafts)") == 1
    assert ">Agent setup</a>" not in page
    drafts = admin_client.get(PARTS, {"agent": "drafts"}).content.decode()
    assert drafts.count('class="action-select"') == 2
