"""A kind registered only here renders, settles and replays through the generic path: a new
kind costs a registry entry, one module and one template, and nothing else changes."""

import pytest
from django.conf import settings as django_settings

from elicitation import contract
from elicitation.kinds import KINDS, Answer, InteractionKind, Refusal, register
from elicitation.models import Part
from playground.runs.agents import agent
from tests.support.live_server import BASE_DIR
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)

STARS = ["1", "2", "3", "4", "5"]


def parse_rating(payload: object, value: object) -> tuple[dict | None, str]:
    if not isinstance(payload, dict) or not payload.get("message"):
        return None, "a rating needs a message"
    return {"message": payload["message"]}, ""


def read_rating(part: Part, given: Answer) -> dict | Refusal:
    if given.action == "cancel":
        return contract.cancel()
    stars = (given.fields.get("stars") or [""])[-1]
    if stars not in STARS:
        return Refusal(422, {"": "Choose from one to five stars."})
    return contract.accept({"stars": int(stars)})


RATING = InteractionKind(
    name="rating",
    tool_name="ask_rating",
    template="tests/rating.html",
    parse=parse_rating,
    read_answer=read_rating,
    context=lambda part, submitted, errors: {"stars": STARS},
    label="Rating asked by",
)


@agent("test-rating", name="Test rating", listed=False)
async def rating_agent(ctx, message: str) -> None:
    rated = await ctx.render(kind="rating", message="How was the deploy?")
    await ctx.say(f"{rated.action}: {rated.content.get('stars', 'none')} stars")


@pytest.fixture
def rating_kind(settings):
    templates = [dict(django_settings.TEMPLATES[0])]
    templates[0]["DIRS"] = [*templates[0]["DIRS"], BASE_DIR / "tests" / "templates"]
    settings.TEMPLATES = templates
    register(RATING)
    yield
    KINDS.pop("rating")


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def test_a_kind_from_outside_renders_settles_and_replays(rating_kind, client, alice):
    conversation = start(alice, "test-rating")
    send(client, conversation, "rate")
    part = pending(conversation)
    assert part.render_kind == "rating"
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert 'aria-label="Rating asked by test-rating"' in page and "5 ★" in page

    refused = answer(client, part, stars="9")
    assert refused.status_code == 422
    assert "Choose from one to five stars." in refused.content.decode()

    chip = answer(client, part, stars="4")
    assert chip.status_code == 200
    assert "Rated 4 of 5" in chip.content.decode()
    assert said(conversation) == ["accept: 4 stars"]  # the replay got the envelope
