"""Links from a page of the playground to its page of the docs (docs/llms.txt names them)."""

from django import template
from django.utils.html import format_html

from playground.docs import pages

register = template.Library()


@register.simple_tag
def docs_link(target: str, text: str = "") -> str:
    """Return a link to the docs page `target` ("connections", "inbox#notifications"), its
    words `text` or else the page's title. An unknown page raises: a help link never 404s."""
    slug, _, anchor = target.partition("#")
    entry = pages.index().find(slug)
    if entry is None:
        raise ValueError(f"docs_link: no page {slug!r} in docs/llms.txt")
    url = entry.url + (f"#{anchor}" if anchor else "")
    return format_html('<a class="docs-link" href="{}">{}</a>', url, text or entry.title)
