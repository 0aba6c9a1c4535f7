"""The docs: every page is in the navigation (docs/llms.txt) and served at /docs/ without a
login, every link between them resolves (anchors included), every code block runs or parses,
and the settings, commands and servers-files references list what the code reads."""

import ast
import json
import re
import shutil
import subprocess
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest
from django.urls import reverse
from markdown_it import MarkdownIt

from playground.agui.agents_file import AguiAgentConfig
from playground.connections.services import OAUTH_KEYS
from playground.docs import pages
from playground.mcp_bridge.servers import ServerConfig
from playground.runs import agents

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
MARKDOWN = MarkdownIt("commonmark").enable("table")


def headings(path: Path) -> set[str]:
    """Return the anchors of a Markdown file's headings, as a code host makes them."""
    tokens = MARKDOWN.parse(path.read_text())
    seen: dict[str, int] = {}
    return {
        pages.slugify(pages._plain(tokens[i + 1]), seen)
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    }


def links(path: Path) -> list[str]:
    found = []
    for token in MARKDOWN.parse(path.read_text()):
        for child in token.children or ():
            if child.type == "link_open":
                found.append(str(child.attrGet("href")))
            elif child.type == "image":
                found.append(str(child.attrGet("src")))
    return found


def code_blocks(path: Path) -> list[tuple[str, str]]:
    return [
        (token.info.strip(), token.content)
        for token in MARKDOWN.parse(path.read_text())
        if token.type == "fence"
    ]


# --- Navigation and links -------------------------------------------------------------------


def test_the_navigation_lists_every_page_and_only_pages_that_exist():
    listed = [entry.slug for entry in pages.index().entries]
    assert sorted(listed) == sorted(path.stem for path in PAGES)
    assert len(set(listed)) == len(listed)


@pytest.mark.parametrize("path", [*PAGES, ROOT / "README.md"], ids=lambda path: path.name)
def test_every_link_resolves_anchors_included(path):
    for link in links(path):
        if re.match(r"^(https?|mailto):", link):
            continue
        target, _, anchor = link.partition("#")
        resolved = (path.parent / target).resolve() if target else path
        assert resolved.is_file(), f"{path.name}: {link} is not a file"
        if anchor:
            assert anchor in headings(resolved), f"{path.name}: {link} has no such heading"


def test_llms_txt_has_a_title_a_summary_and_link_lists(client):
    response = client.get("/llms.txt")  # no login
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    lines = text.splitlines()
    assert lines[0].startswith("# ") and lines[2].startswith("> ")
    sections = re.split(r"^## (.+)$", text, flags=re.M)[1:]
    assert [name for name in sections[::2]] == ["Start", "Guides", "Reference", "Operations"]
    for body in sections[1::2]:
        items = [line for line in body.splitlines() if line.strip()]
        assert items and all(
            re.fullmatch(r"- \[[^\]]+\]\(http://testserver/docs/[a-z0-9-]+\.md\): .+", line)
            for line in items
        ), body
    first = re.search(r"\((http://testserver/docs/[^)]+)\)", text)[1]
    assert client.get(first.removeprefix("http://testserver")).status_code == 200


def test_llms_full_txt_is_every_page_in_one_file(client):
    text = client.get("/llms-full.txt").content.decode()
    for path in PAGES:
        assert path.read_text().strip() in text, path.name


def test_every_page_is_served_without_a_login(client):
    for entry in pages.index().entries:
        response = client.get(entry.url)
        assert response.status_code == 200, entry.url
        assert f'<a href="{entry.url}" aria-current="page">' in response.content.decode()


@pytest.mark.parametrize(
    "address", ["/docs/no/such/page", "/docs/nope/", "/docs/nope.md", "/docs/screenshots/no.png"]
)
def test_a_docs_address_that_does_not_exist_is_a_404_with_navigation_and_search(client, address):
    response = client.get(address)
    page = response.content.decode()
    assert response.status_code == 404
    assert 'type="search"' in page and 'href="/docs/quick-start/"' in page


def test_search_finds_pages_by_their_words(client):
    page = client.get("/docs/search/", {"q": "Idempotency-Key"}).content.decode()
    assert 'href="/docs/api-concepts/"' in page
    assert "No page has all of" in client.get("/docs/search/", {"q": "zyzzyva"}).content.decode()


def test_raw_html_in_a_page_is_text_and_links_between_pages_go_to_the_site(tmp_path, monkeypatch):
    (tmp_path / "llms.txt").write_text("# Docs\n\n> Docs.\n\n## A\n\n- [Page](page.md): a page\n")
    (tmp_path / "page.md").write_text(
        "# Page\n\n<script>alert(1)</script> <b>bold</b> [again](page.md#page) "
        "[evil](javascript:alert(1))\n\n## Two words\n"
    )
    monkeypatch.setattr(pages, "DOCS_DIR", tmp_path)
    monkeypatch.setattr(pages, "INDEX", tmp_path / "llms.txt")
    html = pages.page("page").html
    assert "<script" not in html and "<b>" not in html and "&lt;script&gt;" in html
    assert '<a href="/docs/page/#page">again</a>' in html and 'href="javascript' not in html
    assert '<h2 id="two-words">Two words <a class="anchor" href="#two-words"' in html


def test_files_outside_the_docs_folders_are_not_served(client):
    assert client.get("/docs/screenshots/form.png").status_code == 200
    assert client.get("/docs/screenshots/../../README.md").status_code == 404
    assert client.get("/docs/examples/%2e%2e/%2e%2e/manage.py").status_code == 404


# --- Every code block runs or parses --------------------------------------------------------

BLOCKS = [
    (path, number, language, code)
    for path in [*PAGES, ROOT / "README.md"]
    for number, (language, code) in enumerate(code_blocks(path))
]


@pytest.mark.parametrize(
    ("path", "number", "language", "code"),
    BLOCKS,
    ids=[f"{path.name}-{number}-{language}" for path, number, language, _ in BLOCKS],
)
def test_every_code_block_parses(path, number, language, code, tmp_path):
    if language == "python":
        compile(code, f"{path.name} block {number}", "exec")
    elif language == "sh":
        subprocess.run(["bash", "-n"], input=code, text=True, check=True)
    elif language == "toml":
        tomllib.loads(code)
    elif language == "json":
        decoder, at = json.JSONDecoder(), 0
        while at < len(code.rstrip()):
            at = decoder.raw_decode(code, at)[1]
            while at < len(code) and code[at].isspace():
                at += 1
    elif language == "js":
        if not shutil.which("node"):
            pytest.skip("node is not installed")
        script = tmp_path / "example.mjs"
        script.write_text(code)
        subprocess.run(["node", "--check", str(script)], check=True)
    else:
        assert language == "text", f"{path.name} block {number}: label it (python, sh, ...)"


def test_the_agent_api_examples_register_their_agents(monkeypatch):
    monkeypatch.setattr(agents, "REGISTRY", {})
    blocks = code_blocks(DOCS / "agent-api.md")
    examples = [code for language, code in blocks if language == "python"]
    for code in examples:
        exec(compile(code, "agent-api.md", "exec"), {"__name__": "docs_example"})
    assert len(agents.REGISTRY) == len(examples)


# --- The references list what the code reads -----------------------------------------------

ENV_READERS = {"envbool", "envlist", "envfloat"}


def settings_reads() -> set[str]:
    """Return the environment variables settings.py reads: os.environ.get/[...], environ.get
    and its env* helpers, by an AST walk."""
    tree = ast.parse((ROOT / "playground" / "settings.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            reader = isinstance(func, ast.Name) and func.id in ENV_READERS
            getter = isinstance(func, ast.Attribute) and func.attr == "get"
            if getter and "environ" in ast.unparse(func.value):
                reader = True
            if reader:
                names.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and "environ" in ast.unparse(node.value):
            names.add(node.slice.value)
    return names


def make_and_procfile_reads() -> set[str]:
    makefile = (ROOT / "Makefile").read_text()
    procfile = (ROOT / "Procfile").read_text()
    found = set(re.findall(r"^([A-Z][A-Z_]*) \?=", makefile, re.M))  # HOST ?= ...
    found |= set(re.findall(r"\$\$\{([A-Z][A-Z_]*)", makefile))  # $${DEBUG:-1}
    found |= set(re.findall(r"^ifdef ([A-Z][A-Z_]*)", makefile, re.M))  # MCP
    found |= set(re.findall(r"\$\(([A-Z][A-Z_]*)\)", makefile)) - {"VENV", "PY", "UV"}
    found -= {"PYTHON_FOR_VENV", "SERVE_FLAGS", "MCP_COMMAND"}  # the Makefile's own
    commands = "\n".join(line for line in procfile.splitlines() if not line.startswith("#"))
    found |= set(re.findall(r"\$\{?([A-Z][A-Z_]*)", commands))
    return found


def documented() -> set[str]:
    """Return the variables the settings page's tables list in their first column."""
    names = set()
    for line in (DOCS / "settings.md").read_text().splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split(" | ")[0]))
    return names


def test_the_settings_page_lists_every_variable_settings_py_reads():
    missing = settings_reads() - documented()
    assert not missing, f"add these to docs/settings.md: {sorted(missing)}"


def test_the_settings_page_lists_the_makefile_and_procfile_variables():
    missing = make_and_procfile_reads() - documented()
    assert not missing, f"add these to docs/settings.md: {sorted(missing)}"


def test_the_settings_page_lists_nothing_that_nothing_reads():
    unread = documented() - settings_reads() - make_and_procfile_reads() - {"DATABASE_URL"}
    assert not unread, f"nothing reads these: {sorted(unread)}"


def test_there_is_one_websocket_ping_default():
    procfile = (ROOT / "Procfile").read_text()
    assert "WEBSOCKET_PING_SECONDS:-" not in procfile
    assert "| `WEBSOCKET_PING_SECONDS` | `300` |" in (DOCS / "settings.md").read_text()


def test_every_management_command_has_its_section():
    commands = {path.stem for path in ROOT.glob("*/management/commands/*.py")}
    commands |= {path.stem for path in ROOT.glob("*/*/management/commands/*.py")}
    commands.discard("__init__")
    page = (DOCS / "commands.md").read_text()
    assert commands == set(re.findall(r"^## `([a-z_]+)`", page, re.M))


def test_the_servers_files_page_lists_every_key():
    page = (DOCS / "servers-files.md").read_text()
    mcp, rest = page.split("## AG-UI agents file")
    agui, services = rest.split("## Connection services file")
    mcp_keys = {field.name for field in fields(ServerConfig)} - {"name", "credential"}
    agui_keys = {field.name for field in fields(AguiAgentConfig)} - {"name", "person_headers"}
    for keys, section in [(mcp_keys, mcp), (agui_keys, agui), (OAUTH_KEYS, services)]:
        assert {key for key in keys if f"`{key}`" not in section} == set()


def test_readme_is_the_short_front_door():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert "](docs/index.md)" in readme and "/docs/" in readme


# --- Help where the person is ---------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("page", "docs"),
    [
        ("connections", "/docs/connections/"),
        ("new_llm_agent", "/docs/llm-agents/"),
        ("inbox", "/docs/inbox/"),
        ("api_tokens", "/docs/http-api/"),
        ("workbench", "/docs/workbench/"),
        ("home", "/docs/tutorial/"),
    ],
)
def test_each_page_links_to_its_docs_page_and_the_header_to_the_docs(client, alice, page, docs):
    client.force_login(alice)
    html = client.get(reverse(page)).content.decode()
    assert f'href="{docs}"' in html and 'href="/docs/">Docs</a>' in html


@pytest.mark.django_db
def test_empty_states_say_what_to_do_next(client, alice, settings):
    settings.CONNECTION_SERVICES_FILE = ""
    client.force_login(alice)
    connections = client.get(reverse("connections")).content.decode()
    assert "No services are declared yet" in connections
    assert 'href="/docs/connections/">Connections and secrets</a>' in connections
    inbox = client.get(reverse("inbox")).content.decode()
    assert "Nothing is waiting for you." in inbox and 'href="/docs/inbox/"' in inbox
