"""Images a person attached to an answer, given to the model as images.

An answer's content carries file references only (`{"file", "name", "size", "type", "sha256"}`).
When the model asked with `request_input`, the images among the attached files go back with the
answer as the library's `BinaryContent`, in the tool's result: pydantic-ai sends them as image
input to a model that takes images, and a note naming them to one that does not. The bytes are
read through the turn (`ctx.open_file`) each time the answer is given to the model, and never
kept: the message history the next turn starts from has a note in their place.
"""

from collections.abc import Iterator
from dataclasses import replace

from pydantic_ai import BinaryContent, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart

from elicitation.uploads import is_file_id
from playground.runs.runtime import Response, TurnContext

# What models take as images (the raster types previews are made for, less BMP).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
KEPT_NOTE = "[{media_type} file {file}: shown to you with the answer, not kept since]"


def attached_images(content: dict) -> Iterator[dict]:
    """Yield the descriptions of the images among an answer's attached files."""
    for value in content.values():
        for item in value if isinstance(value, list) else [value]:
            if (
                isinstance(item, dict)
                and is_file_id(item.get("file"))
                and item.get("type") in IMAGE_TYPES
            ):
                yield item


async def with_images(ctx: TurnContext, response: Response) -> object:
    """Return the tool result for an answer: its envelope, and the images it carries."""
    envelope = response.envelope
    if not response.accepted:
        return envelope
    images = []
    for item in attached_images(response.content):
        try:
            opened = await ctx.open_file(item)
        except FileNotFoundError:  # removed since (an admin): the reference says what it was
            continue
        images.append(
            BinaryContent(opened.content, media_type=opened.type, identifier=item["file"])
        )
    return ToolReturn([envelope, *images]) if images else envelope


def without_images(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Return `messages` with every image an answer carried replaced by a note (for keeping)."""
    return [
        replace(message, parts=[_part_without_images(part) for part in message.parts])
        if isinstance(message, ModelRequest)
        else message
        for message in messages
    ]


def _part_without_images(part):
    if isinstance(part, ToolReturnPart | UserPromptPart) and isinstance(part.content, list):
        return replace(part, content=[_note(item) for item in part.content])
    return part


def _note(item):
    if isinstance(item, BinaryContent) and is_file_id(item.identifier):
        return KEPT_NOTE.format(media_type=item.media_type, file=item.identifier)
    return item
