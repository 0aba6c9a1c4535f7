"""The docs in docs/*.md as pages of the site: the order and titles from docs/llms.txt, each page
rendered as agent text is (markdown-it with raw HTML off, then nh3), its headings given the
anchors a code host gives them, and its links to other .md files mapped to /docs/ URLs.

Read from disk and kept until a file changes, so an edited page shows on the next request.
"""

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import nh3
from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.token import Token

DOCS_DIR = settings.BASE_DIR / "docs"
INDEX = DOCS_DIR / "llms.txt"

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
# nh3's allow-list, and the anchors of headings.
_ATTRIBUTES = {
    **nh3.ALLOWED_ATTRIBUTES,
    **{h: nh3.ALLOWED_ATTRIBUTES.get(h, set()) | {"id"} for h in ("h1", "h2", "h3", "h4")},
}


@dataclass(frozen=True)
class Entry:
    """One page in the navigation: its slug, its title there and its one-line description."""

    slug: str
    title: str
    description: str
    section: str

    @property
    def url(self) -> str:
        return site_url(f"{self.slug}.md")


@dataclass(frozen=True)
class Index:
    """docs/llms.txt read: the title, the summary and the pages, in order."""

    title: str
    summary: str
    entries: tuple[Entry, ...]

    def sections(self) -> list[tuple[str, list[Entry]]]:
        grouped: dict[str, list[Entry]] = {}
        for entry in self.entries:
            grouped.setdefault(entry.section, []).append(entry)
        return list(grouped.items())

    def find(self, slug: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.slug == slug), None)


@dataclass(frozen=True)
class Page:
    slug: str
    title: str
    source: str
    html: str
    text: str  # the words a search reads


LINK = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<target>[^)\s]+)\)(?::\s*(?P<description>.*))?$")


def parse_index(text: str) -> Index:
    """Return an llms.txt file read: `# title`, `> summary`, then `## section` headings each
    followed by `- [title](page.md): description` lines."""
    title = summary = section = ""
    entries = []
    for line in text.splitlines():
        if line.startswith("# ") and not title:
            title = line[2:].strip()
        elif line.startswith("> ") and not summary:
            summary = line[2:].strip()
        elif line.startswith("## "):
            section = line[3:].strip()
        elif match := LINK.match(line.strip()):
            target = match["target"]
            slug = target.removesuffix(".md")
            entries.append(Entry(slug, match["title"], match["description"] or "", section))
    return Index(title, summary, tuple(entries))


_cache: dict[Path, tuple[float, object]] = {}


def _cached(path: Path, build):
    mtime = path.stat().st_mtime
    kept = _cache.get(path)
    if kept is None or kept[0] != mtime:
        kept = (mtime, build(path.read_text()))
        _cache[path] = kept
    return kept[1]


def index() -> Index:
    """Return the docs' table of contents (docs/llms.txt)."""
    return _cached(INDEX, parse_index)


def page(slug: str) -> Page | None:
    """Return the page `slug` of the navigation, rendered; None for anything else."""
    if index().find(slug) is None:
        return None
    path = DOCS_DIR / f"{slug}.md"
    if not path.is_file():
        return None
    return _cached(path, lambda source: _render(slug, source))


def pages() -> list[Page]:
    """Return every page of the navigation that exists, in its order."""
    return [found for entry in index().entries if (found := page(entry.slug))]


def slugify(heading: str, seen: dict[str, int]) -> str:
    """Return the anchor a code host gives a heading: lowercase, punctuation dropped, spaces as
    hyphens; a repeated one gets -1, -2..."""
    text = unicodedata.normalize("NFC", heading).lower()
    anchor = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
    count = seen.get(anchor, 0)
    seen[anchor] = count + 1
    return f"{anchor}-{count}" if count else anchor


def site_url(target: str) -> str:
    """Return where a link written in a docs page goes on the site: `x.md#a` is /docs/x/#a,
    another file of docs/ is served under /docs/; absolute URLs and anchors stay."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target):
        return target
    path, _, anchor = target.partition("#")
    anchor = f"#{anchor}" if anchor else ""
    if path.endswith(".md"):
        slug = path.removesuffix(".md")
        return ("/docs/" if slug == "index" else f"/docs/{slug}/") + anchor
    return f"/docs/{path}{anchor}"


def _render(slug: str, source: str) -> Page:
    tokens = _markdown.parse(source)
    seen: dict[str, int] = {}
    title = slug
    for position, token in enumerate(tokens):
        if token.type == "heading_open":
            words = _plain(tokens[position + 1])
            token.attrSet("id", slugify(words, seen))
            if token.tag == "h1" and title == slug:
                title = words
        elif token.type == "inline":
            for child in token.children or ():
                if child.type == "link_open":
                    child.attrSet("href", site_url(str(child.attrGet("href"))))
                elif child.type == "image":
                    child.attrSet("src", site_url(str(child.attrGet("src"))))
    html = _markdown.renderer.render(tokens, _markdown.options, {})
    html = nh3.clean(
        html,
        attributes=_ATTRIBUTES,
        link_rel=None,
        set_tag_attribute_values={"pre": {"tabindex": "0"}},
    )
    html = re.sub(
        r'<(h[2-4]) id="([^"]+)">(.*?)</\1>',
        r'<\1 id="\2">\3 <a class="anchor" href="#\2" aria-label="Link to this section">#</a></\1>',
        html,
    )
    text = " ".join(
        _plain(token) if token.type == "inline" else token.content
        for token in tokens
        if token.type in ("inline", "fence")
    )
    return Page(slug, title, source, html, text)


def _plain(inline: Token) -> str:
    words = {"text": None, "code_inline": None, "softbreak": " ", "hardbreak": " "}
    return "".join(
        words[child.type] or child.content for child in inline.children or () if child.type in words
    )


@dataclass(frozen=True)
class Hit:
    entry: Entry
    excerpt: str


def search(query: str) -> list[Hit]:
    """Return the pages holding every word of `query`, those with more of them first, each
    with the sentence around its first match."""
    words = [word for word in re.findall(r"\w+", query.lower()) if word]
    if not words:
        return []
    ranked = []
    for found in pages():
        haystack = f"{found.title} {found.text}".lower()
        if not all(word in haystack for word in words):
            continue
        score = sum(haystack.count(word) for word in words)
        score += 50 * sum(word in found.title.lower() for word in words)
        entry = index().find(found.slug)
        ranked.append((-score, entry.title, Hit(entry, _excerpt(found.text, words[0]))))
    return [hit for *_, hit in sorted(ranked, key=lambda item: item[:2])]


def _excerpt(text: str, word: str, width: int = 90) -> str:
    at = text.lower().find(word)
    if at < 0:
        return text[: 2 * width]
    start, end = max(0, at - width), at + width
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def full_text() -> str:
    """Return every page in one Markdown file, in the navigation's order (/llms-full.txt)."""
    listed = index()
    parts = [f"# {listed.title}\n\n> {listed.summary}\n"]
    for found in pages():
        parts.append(f"<!-- /docs/{found.slug}.md -->\n\n{found.source.strip()}\n")
    return "\n".join(parts)
