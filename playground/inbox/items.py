"""One inbox item: the question as the chat shows it, with what the inbox says about it."""

from django.template.loader import render_to_string

from elicitation.models import Part, display_name
from elicitation.rendering import render_part_html
from playground.inbox import queries


def parts_for_items(parts):
    """Return `parts` with what an item shows loaded in the same query."""
    return parts.select_related(
        "conversation__agent", "conversation__owner__time_zone", "settled_by"
    )


def others_who_may_answer(part: Part, viewer) -> list[str]:
    """Return who besides the viewer may answer: the owner (when they may) and the names asked."""
    me = f"user:{viewer.get_username()}"
    names = [display_name(name) for name in part.ask or [] if name != me]
    owner = part.conversation.owner
    if part.owner_may_answer and owner.pk != viewer.pk:
        names.insert(0, owner.get_username())
    return names


def item_context(part: Part, viewer) -> dict:
    return {
        "part": part,
        "part_html": render_part_html(part),
        "kind_label": queries.kind_label(part),
        "others": others_who_may_answer(part, viewer),
        "mine": part.conversation.owner_id == viewer.pk,
    }


def render_item(part: Part, viewer) -> str:
    """Return an item's `<li>` (pushed to open inbox pages as it changes)."""
    return render_to_string("inbox/page.html#item", {"item": item_context(part, viewer)})


def render_count(count: int, *, oob: bool = False) -> str:
    """Return the header's count of waiting questions."""
    return render_to_string("inbox/page.html#count", {"inbox_count": count, "oob": oob})
