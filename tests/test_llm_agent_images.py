"""An image a person attaches to an LLM agent's question reaches the model as image input
(over the provider's real HTTP API), while the chat, the steps and the history the next turn
starts from keep only its reference."""

import base64
import json

import pytest

from playground.llm_agents.attached_images import KEPT_NOTE
from playground.runs.models import Conversation, Step
from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls
from tests.support.llm_support import logged_in  # noqa: F401
from tests.support.runtime_helpers import pending, said, send
from tests.test_answer_files import file_storage, png, post, upload  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

SHOT = {
    "type": "object",
    "properties": {
        "screen": {"type": "string", "format": "data-url", "x-ui": {"accept": ["image/*"]}},
        "notes": {"type": "string", "format": "data-url", "title": "Notes"},
    },
    "required": ["screen"],
}
NOTES = b"It broke after the deploy.\n"


@pytest.fixture
def model(settings):
    server = FakeOpenAI(
        tool_calls(("request_input", {"message": "Show me the screen.", "requestedSchema": SHOT})),
        text("I see a red screen."),
        text("It was red."),
    )
    settings.LLM_BASE_URL = server.base_url
    settings.LLM_MODELS = [MODEL]
    settings.LLM_API_KEY = "sk-test-not-stored"
    yield server
    server.close()


def images_in(request: dict) -> list[bytes]:
    """Return the images a chat-completions request carries, decoded."""
    found = []
    for message in request["messages"]:
        content = message.get("content")
        for item in content if isinstance(content, list) else []:
            if item.get("type") == "image_url":
                url = item["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")  # never a link to our files
                found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


def test_an_attached_image_is_shown_to_the_model_and_kept_only_by_reference(client, model):
    response = client.post(
        "/llm-agents/new", {"name": "Looker", "model": f"default/{MODEL}", "instructions": "Hi."}
    )
    assert response.status_code == 302, response.content
    conversation = Conversation.objects.get(agent__name="Looker")
    send(client, conversation, "what went wrong?")
    part = pending(conversation)
    picture = png(64, 48)
    sent = post(
        client,
        part,
        screen=upload("screen.png", picture, "image/png"),
        notes=upload("notes.txt", NOTES),
    )
    assert sent.status_code == 200, sent.content
    assert said(conversation) == ["I see a red screen."]

    first, second = model.requests
    assert images_in(first) == []
    assert images_in(second) == [picture]  # the image, not the text file
    part.refresh_from_db()
    screen = part.response["content"]["screen"]["file"]
    tool_result = next(m for m in second["messages"] if m["role"] == "tool")
    assert screen in tool_result["content"]  # the answer itself names the file
    encoded = base64.b64encode(picture).decode()
    assert encoded not in tool_result["content"]
    stored = json.dumps(list(Step.objects.values_list("result", flat=True)))
    assert encoded not in stored and NOTES.decode() not in stored

    # The next turn starts from the history, where a note stands in for the image.
    send(client, conversation, "and what colour was it?")
    third = model.requests[2]
    assert images_in(third) == []
    assert KEPT_NOTE.format(media_type="image/png", file=screen) in json.dumps(third)
    assert said(conversation)[-1] == "It was red."
