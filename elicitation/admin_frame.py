"""Show chat HTML inside the admin exactly as the chat shows it.

The chat's stylesheet styles bare elements (body, main, table, button), which would restyle the
admin around it, so the fragment gets its own document in a sandboxed frame: the chat's CSS
applies inside, the admin's outside, and the sandbox (no forms, no scripts) keeps it read-only.
"""

from django.templatetags.static import static
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString

DOCUMENT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark">
<title>{title}</title>
<link rel="stylesheet" href="{css}"><base target="_blank"></head>
<body><main>{body}</main></body></html>"""


def chat_frame(html: str, *, title: str) -> SafeString:
    """Return an iframe showing `html` (rendered chat fragments) styled by playground.css."""
    document = DOCUMENT.format(css=static("playground.css"), title=escape(title), body=html)
    return format_html(
        '<iframe class="chat-frame" title="{}" srcdoc="{}" '
        'sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox"></iframe>',
        title,
        escape(document),
    )
