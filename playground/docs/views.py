"""The docs site: /docs/ and its pages, search, the files pages show, and /llms.txt. No login:
the docs are public, as the code host's copy is."""

import mimetypes

from django.http import FileResponse, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from playground.docs import pages

# Files a page may link to or show, besides other pages.
FILE_FOLDERS = ("screenshots", "examples")


def _layout(request, *, status: int = 200, **context) -> HttpResponse:
    listed = pages.index()
    context.setdefault("query", request.GET.get("q", ""))
    return render(
        request,
        "docs/page.html",
        {"sections": listed.sections(), "site_title": listed.title, **context},
        status=status,
    )


def _missing(request) -> HttpResponse:
    """The 404 page: what was asked for, the navigation and the search box."""
    return _layout(request, status=404, title="Page not found", missing=request.path)


@require_safe
def page(request, slug: str = "index") -> HttpResponse:
    """Show one page with the navigation, previous and next; a missing one is a 404 page with
    the navigation and the search box."""
    found = pages.page(slug)
    if found is None:
        return _missing(request)
    entries = pages.index().entries
    at = next(i for i, entry in enumerate(entries) if entry.slug == slug)
    return _layout(
        request,
        page=found,
        title=found.title,
        current=slug,
        previous=entries[at - 1] if at > 0 else None,
        next=entries[at + 1] if at + 1 < len(entries) else None,
    )


@require_safe
def source(request, slug: str) -> HttpResponse:
    """Return a page as its Markdown (what llms.txt links to)."""
    found = pages.page(slug)
    if found is None:
        return _missing(request)
    return HttpResponse(found.source, content_type="text/markdown; charset=utf-8")


@require_safe
def search(request) -> HttpResponse:
    """List the pages holding every word searched for."""
    query = request.GET.get("q", "").strip()
    return _layout(request, title="Search", searched=True, hits=pages.search(query), query=query)


@require_safe
def file(request, folder: str, path: str) -> HttpResponse:
    """Send a file of docs/screenshots or docs/examples (a picture a page shows, an example it
    links to), never anything outside them."""
    base = (pages.DOCS_DIR / folder).resolve()
    target = (base / path).resolve()
    if folder not in FILE_FOLDERS or not target.is_relative_to(base) or not target.is_file():
        return _missing(request)
    kind = mimetypes.guess_type(target.name)[0]
    image = kind in ("image/png", "image/jpeg")
    return FileResponse(
        target.open("rb"),
        content_type=kind if image else "text/plain; charset=utf-8",
        as_attachment=False,
    )


@require_safe
def llms_txt(request) -> HttpResponse:
    """The docs' index in the llms.txt format, its links made absolute (each page's Markdown)."""
    listed = pages.index()
    lines = [f"# {listed.title}", "", f"> {listed.summary}"]
    section = None
    for entry in listed.entries:
        if entry.section != section:
            section = entry.section
            lines += ["", f"## {section}", ""]
        url = request.build_absolute_uri(f"/docs/{entry.slug}.md")
        lines.append(f"- [{entry.title}]({url}): {entry.description}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


@require_safe
def llms_full_txt(request) -> HttpResponse:
    """Every page in one Markdown file."""
    return HttpResponse(pages.full_text(), content_type="text/plain; charset=utf-8")
