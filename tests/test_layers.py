"""Dependencies run one way: no import circle, the lower app never imports the upper one, and
every module imports cleanly in any order in a fresh interpreter."""

import ast
import functools
import random
import subprocess
import sys

from tests.support.live_server import BASE_DIR

PACKAGES = ("elicitation", "playground")
# The layers, lowest first: a module imports only from its own layer or those below it.
# `elicitation` is the primitive; `playground` is the product built on it, its rooms named for
# what they do. Its own top (settings, urls, asgi) is configuration and composes them all.
LAYERS = (
    ("elicitation", "jobs"),
    ("connections", "inbox", "notify"),
    ("runs", "chat", "schedules", "server", "onboarding", "accounts", "docs"),
    ("mcp_bridge",),
    ("llm_agents",),
    ("agui",),
    ("api", "mcp_server"),
    ("workbench",),
)
RANK = {room: rank for rank, rooms in enumerate(LAYERS) for room in rooms}
CONFIGURATION = ("formats",)  # beside settings, urls and asgi
# Django's documented place for imports that need the app registry.
FUNCTION_IMPORTS_ALLOWED = {
    "playground/runs/apps.py",
    "playground/chat/apps.py",
    "playground/mcp_bridge/apps.py",
    "playground/llm_agents/apps.py",
    "playground/agui/apps.py",
    "playground/api/apps.py",
    "playground/notify/apps.py",
    "playground/mcp_server/apps.py",
    # The model clients: 1.9 s of imports, only when a model is used.
    "playground/llm_agents/providers.py",
    # The MCP SDK and pydantic_ai: 3 of the 5 CPU seconds of every `manage.py` command when
    # Django imported them at start; these modules load at start and import them when used.
    "playground/llm_agents/agent.py",
    "playground/mcp_bridge/agent.py",
    # ag_ui's pydantic types: a second, only at an AG-UI agent's first turn.
    "playground/agui/agent.py",
    "playground/connections/models.py",
}
# The ASGI entry point composes every app (it sits above them all, like the root URLconf).
ENTRY_POINTS = {"playground.asgi"}


@functools.cache  # parsed once for the module's tests: each reads every source file
def project_modules() -> dict[str, ast.Module]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((BASE_DIR / package).rglob("*.py")):
            relative = path.relative_to(BASE_DIR)
            if "migrations" in relative.parts:
                continue
            name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
            modules[name] = ast.parse(path.read_text(), filename=str(relative))
    return modules


def imported(tree: ast.Module, *, top_level_only: bool) -> set[str]:
    nodes = tree.body if top_level_only else ast.walk(tree)
    names = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name.split(".")[0] in PACKAGES}


def test_the_elicitation_app_never_imports_the_playground():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if name.startswith("elicitation")
        for target in imported(tree, top_level_only=False)
        if target.startswith("playground")
    ]
    assert upward == []


def room(module: str) -> str | None:
    """Return the room of a module: `elicitation`, or the playground's sub-package it is in;
    None for the playground's own top (configuration)."""
    parts = module.split(".")
    if parts[0] == "elicitation":
        return "elicitation"
    if len(parts) == 1 or parts[1] in CONFIGURATION:
        return None
    if len(parts) == 2 and parts[1] not in RANK:
        return None  # settings, urls, asgi
    return parts[1]


def test_every_room_is_in_a_layer():
    rooms = {room(name) for name in project_modules()} - {None}
    assert rooms == set(RANK)


def test_every_import_goes_down_or_across_a_layer():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if room(name) is not None
        for target in imported(tree, top_level_only=False)
        if room(target) is not None and RANK[room(target)] > RANK[room(name)]
    ]
    assert upward == []


def test_imports_sit_at_the_top_of_modules():
    hidden = []
    for name, tree in project_modules().items():
        path = name.replace(".", "/") + ".py"
        if path in FUNCTION_IMPORTS_ALLOWED:
            continue
        if imported(tree, top_level_only=False) != imported(tree, top_level_only=True):
            hidden.append(name)
    assert hidden == []


def test_there_is_no_import_circle():
    modules = project_modules()
    graph = {
        # Every import counts, those inside functions too: importing lazily hides no circle.
        # (A package importing its own submodules is no circle.)
        name: {
            target
            for target in imported(tree, top_level_only=False)
            if target in modules and target != name
        }
        for name, tree in modules.items()
    }
    visiting, done, circles = set(), set(), []

    def visit(name: str, path: list[str]) -> None:
        if name in done:
            return
        if name in visiting:
            circles.append([*path[path.index(name) :], name])
            return
        visiting.add(name)
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        visiting.discard(name)
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == []


def test_every_module_imports_in_a_shuffled_order_in_a_fresh_interpreter():
    # One order: the circles an order could trip over are refused above, without importing.
    order = sorted(project_modules())
    random.Random(1).shuffle(order)
    script = (
        "import django, importlib, os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'playground.settings')\n"
        "django.setup()\n"
        f"for name in {order!r}:\n"
        "    importlib.import_module(name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=BASE_DIR, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


def in_jobs(name: str) -> bool:
    return name == "playground.jobs" or name.startswith("playground.jobs.")


def test_the_jobs_mechanism_imports_no_app():
    """Every app's work that happens later runs on it: it knows none of them."""
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if in_jobs(name)
        for target in imported(tree, top_level_only=False)
        if not in_jobs(target)
    ]
    assert upward == []


def test_only_the_jobs_mechanism_claims_rows():
    """One claim for every job: no other module locks rows skipping the locked ones."""
    claiming = [
        name
        for name, tree in project_modules().items()
        if not in_jobs(name)
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "skip_locked"
    ]
    assert claiming == []
