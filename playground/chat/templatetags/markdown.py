"""Render agent markdown safely: markdown-it with raw HTML off, then an allow-list sanitizer."""

import nh3
from django import template
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

register = template.Library()

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


@register.filter
def markdown(text: str) -> str:
    """Return sanitized HTML for agent markdown; raw HTML in the text is shown as text."""
    html = _markdown.render(text or "")
    # A code block scrolls sideways, so it must be reachable from the keyboard.
    return mark_safe(
        nh3.clean(
            html,
            link_rel="noopener noreferrer nofollow",
            set_tag_attribute_values={"pre": {"tabindex": "0"}},
        )
    )
